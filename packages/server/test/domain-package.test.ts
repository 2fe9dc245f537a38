import { expect, layer } from "@effect/vitest"
import { repoRoot, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"

/**
 * `@bizops/domain` as another service gets it: `npm pack` of packages/domain (which must build its own
 * `dist`), installed from the tarball into a fresh project with the repository's TypeScript from the npm
 * registry, type-checked with default settings and run against a test server. Slow (a build and an
 * install), hence the long timeout.
 */

const domainDir = join(repoRoot, "packages", "domain")
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"))
/** The consumer gets the versions this repository builds and tests with, so that the test is repeatable. */
const typescriptVersion: string = readJson(join(repoRoot, "package.json")).devDependencies.typescript
const effectVersion: string = readJson(join(domainDir, "package.json")).devDependencies.effect

/**
 * The environment for npm and node in the temporary folders: this one, with the running node first on
 * the PATH, and without what `npm test` sets about the repository's own package (a child npm would
 * take the repository for its project).
 */
const childEnv = (): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...process.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) }
  for (const name of Object.keys(env)) {
    if (/^npm_(package|lifecycle)_|^npm_config_local_prefix$|^INIT_CWD$/i.test(name)) delete env[name]
  }
  return env
}

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.promise(() =>
    new Promise<Run>((done) => {
      execFile(command, args, { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    })
  )

/** Runs a command that must succeed, and shows its output when it does not. */
const succeed = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.gen(function*() {
    const result = yield* run(command, args, cwd)
    expect(result.code, `${command} ${args.join(" ")} in ${cwd}:\n${result.stdout}\n${result.stderr}`).toBe(0)
    return result.stdout
  })

const tempFolder = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "bizops-domain-package-"))),
  (folder) => Effect.promise(() => rm(folder, { recursive: true, force: true }))
)

/** What the README shows, with the test server's address and key in place of the examples'. */
const consumerSource = (baseUrl: string, apiKey: string) => `import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

const program = Effect.gen(function*() {
  const api = yield* HttpApiClient.make(Api, {
    baseUrl: ${JSON.stringify(baseUrl)},
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", ${JSON.stringify(apiKey)}))
  })
  const client = yield* api.clients.create({ payload: { name: "Ada Studio", status: "new" } })
  const leads = yield* api.clients.list({ query: { status: "new" } })
  const found = yield* api.clients.get({ params: { id: client.id } }).pipe(
    Effect.catchTag("NotFound", () => Effect.succeed(null))
  )
  const total: number = leads.pagination.total
  const name: string = client.name
  return { id: client.id, name, total, found: found?.id ?? null }
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise).then((result) => console.log(JSON.stringify(result)))
`

/** A tsconfig with only what the task names: no custom conditions, no extra lib. */
const minimalTsconfig = {
  compilerOptions: { strict: true, module: "nodenext", target: "es2022", skipLibCheck: false }
}

layer(TestServerLive)("@bizops/domain as a published package", (it) => {
  it.effect("npm pack builds dist, ships no tests, and a fresh project installs, type-checks and calls the API", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization(["clients:read", "clients:write"])
      const folder = yield* tempFolder
      const packs = join(folder, "packs")
      const consumer = join(folder, "consumer")
      yield* Effect.promise(() => Promise.all([mkdir(packs), mkdir(consumer)]))

      yield* succeed("npm", ["pack", "--pack-destination", packs], domainDir)
      const tarballs = (yield* Effect.promise(() => readdir(packs))).filter((name) => name.endsWith(".tgz"))
      expect(tarballs).toHaveLength(1)
      const tarball = join(packs, tarballs[0])

      const entries = (yield* succeed("tar", ["tzf", tarball], folder)).split("\n").filter((line) => line !== "")
      expect(entries).toContain("package/package.json")
      expect(entries).toContain("package/dist/index.js")
      expect(entries).toContain("package/dist/index.d.ts")
      expect(entries).toContain("package/dist/Api.d.ts")
      expect(entries.filter((entry) => /\.test\.|(^|\/)test\//.test(entry))).toEqual([])
      // No TypeScript sources (only declarations): a consumer's tools never compile ours.
      expect(entries.filter((entry) => entry.endsWith(".ts") && !entry.endsWith(".d.ts"))).toEqual([])
      expect(entries.filter((entry) => entry.endsWith(".tsbuildinfo"))).toEqual([])

      const packed = JSON.parse(yield* succeed("tar", ["xzOf", tarball, "package/package.json"], folder))
      // Nothing of the monorepo at run time, and the consumer's own `effect` (one copy, so the types line up).
      expect(Object.keys(packed.dependencies ?? {}).filter((name) => name.startsWith("@bizops/"))).toEqual([])
      expect(packed.dependencies?.effect).toBeUndefined()
      expect(packed.peerDependencies?.effect).toMatch(/^\^4\./)

      yield* succeed("npm", ["init", "-y"], consumer)
      yield* succeed("npm", ["pkg", "set", "type=module"], consumer)
      yield* succeed("npm", ["install", "--no-audit", "--no-fund", tarball, `effect@${effectVersion}`, `typescript@${typescriptVersion}`], consumer)
      // One `effect` in the consumer: the package's schemas and the consumer's HttpApiClient share it.
      expect(existsSync(join(consumer, "node_modules", "@bizops", "domain", "node_modules", "effect"))).toBe(false)
      yield* Effect.promise(() => writeFile(join(consumer, "client.ts"), consumerSource(server.baseUrl, org.apiKey)))
      const tsc = join(consumer, "node_modules", "typescript", "bin", "tsc")

      // 1. What `tsc --init` of this TypeScript version writes.
      yield* succeed(process.execPath, [tsc, "--init"], consumer)
      yield* succeed(process.execPath, [tsc, "--noEmit", "-p", "."], consumer)
      // 2. Only strict, nodenext, es2022 (so no ES2024 lib) and every declaration file checked.
      yield* Effect.promise(() => writeFile(join(consumer, "tsconfig.json"), JSON.stringify(minimalTsconfig, null, 2)))
      yield* succeed(process.execPath, [tsc, "--noEmit", "-p", "."], consumer)

      // The same file runs (Node strips the types) against the test server, on the packed dist.
      const output = yield* succeed(process.execPath, ["client.ts"], consumer)
      const result = JSON.parse(output.trim().split("\n").at(-1) ?? "null")
      expect(result.name).toBe("Ada Studio")
      expect(result.total).toBe(1)
      expect(result.found).toBe(result.id)
    }), { timeout: 180_000 })
})
