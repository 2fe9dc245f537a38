/**
 * Scopes an integrator can find (issue 14): `npm run admin -- scopes` lists every scope in both spellings,
 * and `key create` / `app create` refuse an unknown scope with what was meant and every valid scope.
 */
import { expect, layer } from "@effect/vitest"
import { ALL_SCOPES, OAUTH_SCOPES } from "@bizops/domain"
import { runScript, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"

/** Runs `npm run admin -- ARGS` as an operator would, on this database. */
const admin = (databaseUrl: string, ...args: Array<string>) => runScript("scripts/admin.ts", args, { DATABASE_URL: databaseUrl })

const lastJson = (text: string) => JSON.parse(text.trim().split("\n").at(-1) ?? "null")

/** A database nobody listens on: a command that opened one would fail. */
const NO_DATABASE = "postgres://postgres@127.0.0.1:1/none"

layer(TestServerLive)("admin scopes", (it) => {
  it.effect("lists every scope once in both spellings, and the OAuth-only ones, without a database", () =>
    Effect.gen(function*() {
      const run = yield* admin(NO_DATABASE, "scopes")
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      expect(run.stdout.trim().split("\n")).toHaveLength(1)
      const listed = JSON.parse(run.stdout)
      expect(Object.keys(listed)).toEqual(["scopes", "oauthOnly"])
      expect(listed.scopes[0]).toEqual({ resource: "clients", access: "read", apiKey: "clients:read", oauth: "read:clients" })
      expect(listed.scopes.map((s: { apiKey: string }) => s.apiKey)).toEqual([...ALL_SCOPES])
      for (const s of listed.scopes) {
        expect(Object.keys(s)).toEqual(["resource", "access", "apiKey", "oauth"])
        expect(s.apiKey).toBe(`${s.resource}:${s.access}`)
        expect(s.oauth).toBe(`${s.access}:${s.resource}`)
      }
      expect(listed.oauthOnly).toEqual(["offline_access", "openid"])
      expect([...listed.scopes.map((s: { oauth: string }) => s.oauth), ...listed.oauthOnly].sort()).toEqual([...OAUTH_SCOPES].sort())
      expect(listed.scopes).toContainEqual({ resource: "inquiries", access: "write", apiKey: "inquiries:write", oauth: "write:inquiries" })
      expect(listed.scopes.some((s: { apiKey: string }) => s.apiKey === "inquiries:read" || s.apiKey === "sales:write")).toBe(false)

      const help = yield* admin(NO_DATABASE, "scopes", "--help")
      expect(help.code).toBe(0)
      expect(help.stderr).toBe("")
      expect(help.stdout).toContain("admin scopes")
      expect(help.stdout).toContain("read:clients")
      const top = yield* admin(NO_DATABASE, "--help")
      expect(top.stdout).toMatch(/scopes\s+Every scope/)

      const usage = yield* admin(NO_DATABASE, "scopes", "--bogus")
      expect(usage.code).toBe(2)
      expect(usage.stdout).toBe("")
      expect(lastJson(usage.stderr).error.code).toBe("usage")
    }), { timeout: 60_000 })

  it.effect("key create and app create refuse an unknown scope with the spelling they take and every valid scope", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const db = server.databaseUrl
      const org = yield* server.organization()
      const refused = (...args: Array<string>) =>
        Effect.map(admin(db, ...args), (run) => {
          expect(run.code, args.join(" ")).toBe(1)
          expect(run.stdout, args.join(" ")).toBe("")
          const error = lastJson(run.stderr).error
          expect(error, args.join(" ")).toEqual({ code: "invalid_scope", message: expect.any(String) })
          return error.message as string
        })
      const [key, keyMixed, app, appTypo] = yield* Effect.all([
        refused("key", "create", "--org", org.organizationId, "--scopes", "read:clients"),
        refused("key", "create", "--org", org.organizationId, "--scopes", "clients:read,client:write offline_access"),
        refused("app", "create", "--name", "Mixed", "--redirect-uri", "https://mixed.example.com/cb", "--scopes", "clients:read offline_access"),
        refused("app", "create", "--name", "Typo", "--redirect-uri", "https://typo.example.com/cb", "--scopes", "read:clients write:sales offline-access")
      ], { concurrency: "unbounded" })

      expect(key).toContain("Unknown scope: read:clients.")
      expect(key).toContain("read:clients is an OAuth scope; API keys use clients:read.")
      expect(key).toContain("API keys take scopes spelled <resource>:read or <resource>:write")
      expect(key).toContain(`the valid ones are: ${ALL_SCOPES.join(", ")}.`)
      expect(key).toContain("npm run admin -- scopes")

      expect(keyMixed).toContain("Unknown scopes: client:write, offline_access.")
      expect(keyMixed).toContain("client:write: did you mean clients:write?")
      expect(keyMixed).toContain("offline_access is an OAuth-only scope")
      expect(keyMixed).not.toContain("clients:read is")

      expect(app).toContain("Unknown scope: clients:read.")
      expect(app).toContain("clients:read is an API-key scope; OAuth apps use read:clients.")
      expect(app).toContain("OAuth apps take scopes spelled read:<resource> or write:<resource>, plus offline_access and openid")
      for (const s of OAUTH_SCOPES) expect(app).toContain(s)

      expect(appTypo).toContain("Unknown scopes: write:sales, offline-access.")
      expect(appTypo).toContain("sales is read-only: it has read:sales, no write scope.")
      expect(appTypo).toContain("offline-access: did you mean offline_access?")

      // Nothing was created: the refusal comes before the database is written (or even opened).
      const keys = yield* admin(NO_DATABASE, "key", "create", "--org", org.organizationId, "--scopes", "clients:bogus")
      expect(lastJson(keys.stderr).error.code).toBe("invalid_scope")
      expect(keys.code).toBe(1)

      // The valid spellings still work.
      const created = yield* admin(db, "key", "create", "--org", org.organizationId, "--scopes", "clients:read inquiries:write")
      expect(created.code).toBe(0)
      expect(JSON.parse(created.stdout).scopes).toEqual(["clients:read", "inquiries:write"])
      const registered = yield* admin(db, "app", "create", "--name", "Fine", "--redirect-uri", "https://fine.example.com/cb", "--scopes", "read:clients offline_access openid")
      expect(registered.code).toBe(0)
      expect(Object.keys(JSON.parse(registered.stdout))).toEqual(["clientId", "clientSecret"])
    }), { timeout: 120_000 })
})
