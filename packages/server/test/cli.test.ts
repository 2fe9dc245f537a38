import { expect, layer } from "@effect/vitest"
import { get, post, runScript, serverProcess, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Runs `npm run admin -- ARGS` as an operator would, on the test file's database. */
const admin = (databaseUrl: string, ...args: Array<string>) => runScript("scripts/admin.ts", args, { DATABASE_URL: databaseUrl })

const lastJson = (text: string) => JSON.parse(text.trim().split("\n").at(-1) ?? "null")

layer(TestServerLive)("operator command line", (it) => {
  it.effect("org create, key create and key revoke work against a running server", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* admin(server.databaseUrl, "org", "create", "--name", "Studio Nine")
      expect(org.code).toBe(0)
      const { organizationId, businessId } = JSON.parse(org.stdout)
      expect(organizationId).toMatch(/^[0-9a-f-]{36}$/)
      expect(businessId).toMatch(/^[0-9a-f-]{36}$/)

      const key = yield* admin(server.databaseUrl, "key", "create", "--org", organizationId, "--scopes", "clients:read clients:write", "--name", "ci")
      expect(key.code).toBe(0)
      const created = JSON.parse(key.stdout)
      expect(created.apiKey).toMatch(/^bok_[A-Za-z0-9_-]{43}$/)
      expect(created.scopes).toEqual(["clients:read", "clients:write"])

      const client = yield* post("/api/v1/clients", { name: "Via CLI key" }, { key: created.apiKey })
      expect(client.status).toBe(201)
      expect(client.body.businessId).toBe(businessId)
      expect((yield* get("/api/v1/contacts", { key: created.apiKey })).status).toBe(403)

      const revoked = yield* admin(server.databaseUrl, "key", "revoke", "--id", created.id)
      expect(revoked.code).toBe(0)
      expect(JSON.parse(revoked.stdout)).toEqual({ id: created.id, revoked: true })
      expect((yield* get("/api/v1/clients", { key: created.apiKey })).status).toBe(401)
    }))

  it.effect("failures print the error object on stderr and exit non-zero", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = JSON.parse((yield* admin(server.databaseUrl, "org", "create", "--name", "X")).stdout)
      const cases: Array<[Array<string>, string]> = [
        [["key", "create", "--org", org.organizationId, "--scopes", "clients:bogus"], "invalid_scope"],
        [["key", "create", "--org", "00000000-0000-4000-8000-000000000000", "--scopes", "clients:read"], "not_found"],
        [["key", "create", "--org", "not-a-uuid", "--scopes", "clients:read"], "usage"],
        [["key", "revoke", "--id", "00000000-0000-4000-8000-000000000000"], "not_found"],
        [["org", "create"], "usage"],
        [["frobnicate"], "usage"]
      ]
      for (const [args, code] of cases) {
        const run = yield* admin(server.databaseUrl, ...args)
        expect(run.code).not.toBe(0)
        expect(run.stdout).toBe("")
        expect(lastJson(run.stderr).error.code).toBe(code)
      }
    }))
})

layer(TestServerLive)("quick start", (it) => {
  it.effect("npm start on a fresh data directory serves the API and prints a Demo key once", () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "bizops-start-")))
      const start = () => serverProcess({ DATA_DIR: dataDir })

      const first = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* start()
        const key = /(bok_[A-Za-z0-9_-]{43})/.exec(server.output())?.[1]
        expect(key).toBeDefined()
        const credentials = JSON.parse(yield* Effect.promise(() => readFile(join(dataDir, "dev-credentials.json"), "utf8")))
        expect(credentials.apiKey).toBe(key)
        expect((yield* Effect.promise(() => stat(join(dataDir, "dev-credentials.json")))).mode & 0o777).toBe(0o600)
        const created = yield* Effect.promise(() =>
          fetch(`${server.url}/api/v1/clients`, {
            method: "POST",
            headers: { "x-api-key": key ?? "", "content-type": "application/json" },
            body: JSON.stringify({ name: "Ada Studio", status: "new" })
          }).then((r) => r.status)
        )
        expect(created).toBe(201)
        const leads = yield* Effect.promise(() =>
          fetch(`${server.url}/api/v1/clients?status=new`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<{ data: Array<{ name: string }> }>)
        )
        expect(leads.data.map((c) => c.name)).toEqual(["Ada Studio"])
        return key
      }))

      const again = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* start()
        expect(server.output()).not.toContain("bok_")
        return yield* Effect.promise(() =>
          fetch(`${server.url}/api/v1/clients`, { headers: { "x-api-key": first ?? "" } }).then((r) => r.json() as Promise<{ pagination: { total: number } }>)
        )
      }))
      expect(again.pagination.total).toBe(1)
      expect(existsSync(join(dataDir, "pg", "PG_VERSION"))).toBe(true)
      yield* Effect.promise(() => rm(dataDir, { recursive: true, force: true }))
    }), { timeout: 180_000 })
})
