import { describe, expect, it } from "@effect/vitest"
import { repoRoot, runScript, serverProcess } from "@bizops/testkit"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"
import { chmod, mkdir, mkdtemp, rm, symlink } from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import { join, resolve } from "node:path"

const isRoot = userInfo().uid === 0
/** Where the service keeps, as root, what the database user must reach outside a closed folder. */
const OUTSIDE = "/var/lib/bizops-embedded"

/** Where `.data/pg` points when it is a link (the data kept outside the closed folder). */
const dataLinkTarget = (app: string): string | undefined => {
  const link = join(app, ".data", "pg")
  try {
    return lstatSync(link).isSymbolicLink() ? resolve(join(app, ".data"), readlinkSync(link)) : undefined
  } catch {
    return undefined
  }
}

/**
 * A copy of this checkout (hard links, so it is quick) inside a fresh folder that only its owner can
 * enter, as a clone under /root or in a mktemp -d folder is. At the end the folder goes, with the data
 * the service kept outside it. The copy of the PostgreSQL programs under OUTSIDE stays: it is shared, per
 * version, by every checkout on the machine (the test run's own database may be using it).
 */
const privateCheckout = Effect.acquireRelease(
  Effect.promise(async () => {
    const folder = await mkdtemp(join(tmpdir(), "bizops-private-"))
    const app = join(folder, "app")
    await mkdir(app)
    for (const entry of readdirSync(repoRoot)) {
      if (entry === ".git" || entry === ".data" || entry.startsWith(".ci-results")) continue
      execFileSync("cp", ["-al", join(repoRoot, entry), join(app, entry)])
    }
    return { folder, app }
  }),
  ({ app, folder }) =>
    Effect.promise(async () => {
      const outside = dataLinkTarget(app)
      await rm(folder, { recursive: true, force: true })
      if (outside?.startsWith(`${OUTSIDE}/`)) await rm(outside, { recursive: true, force: true })
    })
)

const demoKey = (app: string): string => JSON.parse(readFileSync(join(app, ".data", "dev-credentials.json"), "utf8")).apiKey

const clientsStatus = (url: string, key: string) =>
  Effect.promise(() => fetch(`${url}/api/v1/clients`, { headers: { "x-api-key": key } }).then((res) => res.status))

describe("the quick start from any folder", () => {
  it.effect.skipIf(!isRoot)(
    "as root, npm start from a folder closed to other users (0700) starts the embedded PostgreSQL, serves, and keeps its data across starts (skipped unless root: only root runs PostgreSQL as another user)",
    () =>
      Effect.gen(function*() {
        const { folder, app } = yield* privateCheckout
        expect(statSync(folder).mode & 0o777).toBe(0o700)
        // serverProcess removes DATABASE_URL: this is the embedded database, whatever the test run uses.
        const start = () => serverProcess({}, { cwd: app })

        const first = yield* Effect.scoped(Effect.gen(function*() {
          const server = yield* start()
          const key = demoKey(app)
          expect(server.output()).toContain(key)
          expect(yield* clientsStatus(server.url, key)).toBe(200)
          expect(server.output()).not.toMatch(/EACCES|\n\s+at /)
          return key
        }))

        // Again: the same database, reached through the same link.
        yield* Effect.scoped(Effect.gen(function*() {
          const server = yield* start()
          expect(server.output()).not.toContain("bok_")
          expect(yield* clientsStatus(server.url, first)).toBe(200)
        }))

        // The data outside is gone (a wiped /var/lib, a restored clone): the link is followed and a fresh
        // database made there, rather than the start failing.
        const outside = dataLinkTarget(app)
        expect(outside?.startsWith(`${OUTSIDE}/`)).toBe(true)
        yield* Effect.promise(() => rm(outside ?? "", { recursive: true, force: true }))
        yield* Effect.scoped(Effect.gen(function*() {
          const server = yield* start()
          const key = demoKey(app)
          expect(key).not.toBe(first)
          expect(yield* clientsStatus(server.url, key)).toBe(200)
        }))
      }),
    { timeout: 180_000 }
  )

  it.effect("when the database's user cannot enter the folder of its data, one line says so and how to fix it, and the exit code is 1", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "bizops-unreachable-")))
      const closed = join(dir, "closed")
      yield* Effect.promise(async () => {
        await chmod(dir, 0o755)
        await mkdir(join(dir, "data"))
        await mkdir(closed, { mode: 0o000 })
        await chmod(closed, 0o000)
        await symlink(join(closed, "pg"), join(dir, "data", "pg"))
      })
      const run = yield* runScript("packages/server/src/main.ts", [], { DATA_DIR: join(dir, "data"), PORT: "0", DATABASE_URL: "" })
      yield* Effect.promise(() => rm(dir, { recursive: true, force: true }))
      expect(run.code).toBe(1)
      const lines = run.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^The user \S+, which runs the embedded PostgreSQL, cannot enter .*\/closed, where its data goes/)
      expect(lines[0]).toContain("Set DATA_DIR to a folder that user can reach")
      expect(lines[0]).toContain("or set DATABASE_URL to a PostgreSQL server")
    }))

  it.effect("when the embedded PostgreSQL cannot be prepared, one line says what and how to fix it, and the exit code is 1", () =>
    Effect.gen(function*() {
      const run = yield* runScript("packages/server/src/main.ts", [], { DATA_DIR: "/dev/null/bizops", PORT: "0", DATABASE_URL: "" })
      expect(run.code).toBe(1)
      const lines = run.stderr.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^Could not prepare the embedded PostgreSQL \(.*\)\. Run the service as a user who can write DATA_DIR \(\/dev\/null\/bizops\)/)
      expect(lines[0]).toContain("or set DATABASE_URL to a PostgreSQL server")
    }))
})
