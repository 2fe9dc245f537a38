import { describe, expect, it } from "@effect/vitest"
import { repoRoot, runScript, serverProcess } from "@bizops/testkit"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

const isRoot = userInfo().uid === 0
/** Where the service keeps, as root, what the database user must reach outside a closed folder. */
const OUTSIDE = "/var/lib/bizops-embedded"
const outsideEntries = () => new Set(existsSync(OUTSIDE) ? readdirSync(OUTSIDE) : [])

/**
 * A copy of this checkout (hard links, so it is quick) inside a fresh folder that only its owner can
 * enter, as a clone under /root or in a mkdtemp folder is.
 */
const privateCheckout = Effect.acquireRelease(
  Effect.promise(async () => {
    const folder = await mkdtemp(join(tmpdir(), "bizops-private-"))
    const app = join(folder, "app")
    execFileSync("mkdir", [app])
    for (const entry of readdirSync(repoRoot)) {
      if (entry === ".git" || entry === ".data" || entry.startsWith(".ci-results")) continue
      execFileSync("cp", ["-al", join(repoRoot, entry), join(app, entry)])
    }
    return { folder, app, before: outsideEntries() }
  }),
  ({ folder, before }) =>
    Effect.promise(async () => {
      await rm(folder, { recursive: true, force: true })
      // What this start put outside (its data, the library's copy); the shared copy of the binaries stays.
      for (const entry of outsideEntries()) {
        if (!before.has(entry) && !entry.startsWith("postgres-")) await rm(join(OUTSIDE, entry), { recursive: true, force: true })
      }
    })
)

describe("the quick start from any folder", () => {
  it.scoped.skipIf(!isRoot)("as root, npm start from a folder closed to other users (0700) starts the embedded PostgreSQL and serves (skipped unless root)", () =>
    Effect.gen(function*() {
      const { folder, app } = yield* privateCheckout
      expect(statSync(folder).mode & 0o777).toBe(0o700)
      const server = yield* serverProcess({}, { cwd: app })
      const { apiKey } = JSON.parse(readFileSync(join(app, ".data", "dev-credentials.json"), "utf8"))
      const res = yield* Effect.promise(() => fetch(`${server.url}/api/v1/clients`, { headers: { "x-api-key": apiKey } }))
      expect(res.status).toBe(200)
      expect(server.output()).not.toMatch(/EACCES|\n\s+at /)
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
