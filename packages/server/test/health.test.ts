import { expect, layer } from "@effect/vitest"
import { expectError, get, request, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import pg from "pg"

/** A connection of the test's own (not the server's pool), closed when the test's scope ends. */
const connection = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )

const query = (client: pg.Client, text: string, values?: Array<unknown>) => Effect.promise(() => client.query(text, values))

const databaseName = (url: string) => new URL(url).pathname.slice(1)

/** A probe's answer: 200 with its status word, never cached. */
const expectProbe = (res: { status: number; headers: Headers; body: unknown }, body: unknown) => {
  expect(res.status).toBe(200)
  expect(res.body).toEqual(body)
  expect(res.headers.get("cache-control")).toBe("no-store")
  expect(res.headers.get("content-type")).toContain("application/json")
}

/** /ready refused: 503, the envelope (internal_error, the request id of the header), never cached. */
const expectNotReady = (res: { status: number; headers: Headers; body: any }, message: RegExp) => {
  expectError(res, 503, "internal_error")
  expect(res.body.error.message).toMatch(message)
  expect(res.headers.get("cache-control")).toBe("no-store")
}

/** Asks /ready until it is ready again (the pool reconnects), for at most 10 s. */
const readyAgain = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) {
    if ((yield* get("/ready")).status === 200) return
    yield* Effect.promise(() => new Promise((done) => setTimeout(done, 200)))
  }
  expect.fail("/ready did not become ready again")
})

layer(TestServerLive)("health and readiness", (it) => {
  it.effect("GET /health and GET /ready answer 200 without credentials, with no-store and no rate-limit headers", () =>
    Effect.gen(function*() {
      const health = yield* get("/health")
      expectProbe(health, { status: "ok" })
      expect(health.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/)
      expect(health.headers.get("x-ratelimit-limit")).toBeNull()
      expect(health.headers.get("www-authenticate")).toBeNull()
      const ready = yield* get("/ready")
      expectProbe(ready, { status: "ready" })
      expect(ready.headers.get("x-ratelimit-limit")).toBeNull()
      // A credential, valid or not, changes nothing: the probes do not authenticate.
      const org = yield* (yield* TestServer).organization()
      expectProbe(yield* get("/health", { key: org.apiKey }), { status: "ok" })
      expectProbe(yield* get("/ready", { key: `bok_${"x".repeat(43)}` }), { status: "ready" })
      expectProbe(yield* get("/health", { bearer: "not-a-token" }), { status: "ok" })
    }))

  it.effect("another method on /health or /ready is 405 with Allow: GET, as on every route", () =>
    Effect.gen(function*() {
      for (const path of ["/health", "/ready"]) {
        for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
          const res = yield* request(method, path, method === "DELETE" ? {} : { json: {} })
          expectError(res, 405, "method_not_allowed")
          expect(res.headers.get("allow")).toBe("GET")
        }
      }
      // Only the exact paths: a trailing slash or another case is an unknown route.
      expectError(yield* get("/health/"), 404, "not_found")
      expectError(yield* get("/READY"), 404, "not_found")
    }))

  it.effect("/ready is 503 while a migration the code knows is not recorded; /health stays 200", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const client = yield* connection(server.databaseUrl)
      const latest = (yield* query(client, "SELECT migration_id, created_at, name FROM schema_migrations ORDER BY migration_id DESC LIMIT 1")).rows[0]
      yield* query(client, "DELETE FROM schema_migrations WHERE migration_id = $1", [latest.migration_id])
      const refused = yield* get("/ready").pipe(
        Effect.ensuring(query(client, "INSERT INTO schema_migrations (migration_id, created_at, name) VALUES ($1, $2, $3)", [
          latest.migration_id,
          latest.created_at,
          latest.name
        ]))
      )
      expectNotReady(refused, new RegExp(`^Not ready: the database's migrations are not done \\(${latest.migration_id - 1} of ${latest.migration_id}\\)$`))
      expectProbe(yield* get("/health"), { status: "ok" })
      expectProbe(yield* get("/ready"), { status: "ready" })
    }))

  it.effect("/ready is 503 within about 2 s when the database does not answer; /health stays 200", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const client = yield* connection(server.databaseUrl)
      // Holds a lock that the readiness statement waits for, as a database that hangs would.
      yield* query(client, "BEGIN")
      yield* query(client, "LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE")
      const started = Date.now()
      const refused = yield* get("/ready").pipe(Effect.ensuring(query(client, "ROLLBACK")))
      const elapsed = Date.now() - started
      expectNotReady(refused, /^Not ready: the database did not answer within 2 seconds$/)
      expect(elapsed).toBeGreaterThanOrEqual(1900)
      expect(elapsed).toBeLessThan(5000)
      expectProbe(yield* get("/health"), { status: "ok" })
      yield* readyAgain
    }))

  it.effect("/ready is 503 while the database refuses connections, and 200 again once it accepts them; /health stays 200", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const name = databaseName(server.databaseUrl)
      // From the server's maintenance database (a database cannot refuse connections to itself from inside).
      const maintenance = new URL(server.databaseUrl)
      maintenance.pathname = "/postgres"
      const admin = yield* connection(maintenance.toString())
      const allow = (yes: boolean) => query(admin, `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS ${yes}`)
      yield* allow(false)
      const refused = yield* Effect.gen(function*() {
        yield* query(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
        return yield* get("/ready")
      }).pipe(Effect.ensuring(allow(true)))
      expectNotReady(refused, /^Not ready: the database cannot be reached$/)
      // Says nothing of the database's address or error.
      expect(refused.text).not.toMatch(/127\.0\.0\.1|5432|postgres|SQL|allow/i)
      expectProbe(yield* get("/health"), { status: "ok" })
      yield* readyAgain
    }))

  it.effect("the probes are not limited: after 100 failed authentications from this address, they still answer 200", () =>
    Effect.gen(function*() {
      const bad = { key: `bok_${"x".repeat(43)}` }
      const statuses: Array<number> = []
      for (let i = 0; i < 101; i++) statuses.push((yield* get("/api/v1/clients", bad)).status)
      expect(statuses[100]).toBe(429)
      expectProbe(yield* get("/health", bad), { status: "ok" })
      expectProbe(yield* get("/ready", bad), { status: "ready" })
      expectProbe(yield* get("/health"), { status: "ok" })
    }))
})
