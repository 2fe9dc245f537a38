import { expect, layer } from "@effect/vitest"
import { SqlClient } from "effect/sql"
import { BusinessId, OrganizationId, type Principal } from "@bizops/domain"
import { IdempotencyStore } from "@bizops/server"
import { expectError, get, makeTestServer, patch, post, request, ShiftedClock, TestServer } from "@bizops/testkit"
import { Clock, Effect } from "effect"

const clock = new ShiftedClock()

const withKey = (key: string) => ({ "idempotency-key": key })

const countClients = (organizationId: string) =>
  Effect.flatMap(TestServer, (server) =>
    server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM clients WHERE organization_id = ${organizationId}`,
        (rows) => rows[0].n
      ))))

layer(makeTestServer({ clock }))("idempotency keys", (it) => {
  it.effect("a replay returns the stored answer itself, and creates nothing more", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const first = yield* post("/api/v1/clients", { name: "Once", status: "new" }, { key: org.apiKey, headers: withKey("k-1") })
      expect(first.status).toBe(201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const again = yield* request("POST", "/api/v1/clients", {
        key: org.apiKey,
        // The same body with its keys in another order and with white space is the same request.
        raw: "{ \"status\": \"new\",\n  \"name\": \"Once\" }",
        headers: { ...withKey("k-1"), "content-type": "application/json", "x-request-id": "second-try" }
      })
      expect(again.status).toBe(201)
      expect(again.body).toEqual(first.body)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.headers.get("x-request-id")).toBe(first.headers.get("x-request-id"))
      expect(again.headers.get("content-type")).toContain("application/json")
      // The request was authenticated and counted once, though both the idempotency layer and the router asked.
      expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1)
      expect(yield* countClients(org.organizationId)).toBe(1)
    }))

  it.effect("the same key with another body, path or method is 409 idempotency_key_reused", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const created = yield* post("/api/v1/clients", { name: "A" }, { key: org.apiKey, headers: withKey("k-2") })
      expect(created.status).toBe(201)
      expectError(yield* post("/api/v1/clients", { name: "B" }, { key: org.apiKey, headers: withKey("k-2") }), 409, "idempotency_key_reused")
      expectError(yield* post("/api/v1/contacts", { name: "A" }, { key: org.apiKey, headers: withKey("k-2") }), 409, "idempotency_key_reused")
      expectError(yield* patch(`/api/v1/clients/${created.body.id}`, { name: "A" }, { key: org.apiKey, headers: withKey("k-2") }), 409, "idempotency_key_reused")
      expect(yield* countClients(org.organizationId)).toBe(1)
    }))

  it.effect("keys are per credential: another key may use the same Idempotency-Key", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const one = yield* server.organization()
      const two = yield* server.organization()
      expect((yield* post("/api/v1/clients", { name: "A" }, { key: one.apiKey, headers: withKey("shared") })).status).toBe(201)
      const other = yield* post("/api/v1/clients", { name: "A" }, { key: two.apiKey, headers: withKey("shared") })
      expect(other.status).toBe(201)
      expect(other.headers.get("idempotent-replayed")).toBeNull()
    }))

  it.effect("a key over 255 characters is 400; validation failures, 401 and 403 are not stored", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      expectError(yield* post("/api/v1/clients", { name: "A" }, { key: org.apiKey, headers: withKey("x".repeat(256)) }), 400, "invalid_request")
      expect((yield* post("/api/v1/clients", { name: "A" }, { key: org.apiKey, headers: withKey("x".repeat(255)) })).status).toBe(201)

      expectError(yield* post("/api/v1/clients", { name: "" }, { key: org.apiKey, headers: withKey("k-3") }), 400, "invalid_request", "invalid_payload")
      const fixed = yield* post("/api/v1/clients", { name: "Fixed" }, { key: org.apiKey, headers: withKey("k-3") })
      expect(fixed.status).toBe(201)
      expect(fixed.headers.get("idempotent-replayed")).toBeNull()

      const reader = yield* server.organization(["clients:read"])
      expectError(yield* post("/api/v1/clients", { name: "A" }, { key: reader.apiKey, headers: withKey("k-4") }), 403, "forbidden")
      expectError(yield* post("/api/v1/clients", { name: "A" }, { key: "bok_wrong", headers: withKey("k-4") }), 401, "unauthorized")
    }))

  it.effect("a 4xx of the handler is stored, and the handler's own changes are rolled back", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = (yield* post("/api/v1/clients", { name: "C" }, { key: org.apiKey })).body
      const ada = (yield* post("/api/v1/contacts", { name: "Ada", email: "ada@example.com", clientId: client.id, isPrimary: true }, { key: org.apiKey })).body
      // Making a new primary first clears Ada's flag, then the insert fails on the duplicate email.
      const body = { name: "Twin", email: "ADA@example.com", clientId: client.id, isPrimary: true }
      const refused = yield* post("/api/v1/contacts", body, { key: org.apiKey, headers: withKey("k-5") })
      expectError(refused, 409, "conflict", "duplicate_record")
      expect((yield* get(`/api/v1/contacts/${ada.id}`, { key: org.apiKey })).body.isPrimary).toBe(true)
      const replayed = yield* post("/api/v1/contacts", body, { key: org.apiKey, headers: withKey("k-5") })
      expect(replayed.status).toBe(409)
      expect(replayed.body).toEqual(refused.body)
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    }))

  it.effect("a failure after the handler's insert leaves nothing behind, and the key can be used again", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      // Storing the answer fails (as a crash between the insert and the commit would): the client's
      // insert has run inside the same transaction and must not survive.
      // One statement per query: the client prepares every statement (no simple-query scripts).
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.andThen(
          sql.unsafe(`
            CREATE FUNCTION fail_idempotency_insert() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'injected failure'; END $$`),
          sql.unsafe(`
            CREATE TRIGGER fail_idempotency_insert BEFORE INSERT ON idempotency_keys
              FOR EACH ROW EXECUTE FUNCTION fail_idempotency_insert()`)
        )))
      const failed = yield* post("/api/v1/clients", { name: "Ghost" }, { key: org.apiKey, headers: withKey("k-6") })
      expectError(failed, 500, "internal_error")
      expect(failed.text).not.toContain("injected failure")
      expect(yield* countClients(org.organizationId)).toBe(0)
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.andThen(
          sql.unsafe(`DROP TRIGGER fail_idempotency_insert ON idempotency_keys`),
          sql.unsafe(`DROP FUNCTION fail_idempotency_insert()`)
        )))
      const retried = yield* post("/api/v1/clients", { name: "Ghost" }, { key: org.apiKey, headers: withKey("k-6") })
      expect(retried.status).toBe(201)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
      expect(yield* countClients(org.organizationId)).toBe(1)
    }))

  it.effect("50 concurrent POSTs with one key create exactly one record", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const answers = yield* Effect.all(
        Array.from({ length: 50 }, () => post("/api/v1/clients", { name: "Racer" }, { key: org.apiKey, headers: withKey("k-race") })),
        { concurrency: "unbounded" }
      )
      const fresh = answers.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === null)
      const replays = answers.filter((a) => a.status === 201 && a.headers.get("idempotent-replayed") === "true")
      const running = answers.filter((a) => a.status === 409)
      expect(fresh).toHaveLength(1)
      expect(replays.length + running.length).toBe(49)
      for (const a of running) expectError(a, 409, "request_in_progress")
      for (const a of replays) expect(a.body).toEqual(fresh[0].body)
      expect(yield* countClients(org.organizationId)).toBe(1)
    }))

  it.effect("PATCH is idempotent too", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = (yield* post("/api/v1/clients", { name: "P" }, { key: org.apiKey })).body
      const first = yield* patch(`/api/v1/clients/${client.id}`, { name: "P2" }, { key: org.apiKey, headers: withKey("k-7") })
      yield* patch(`/api/v1/clients/${client.id}`, { name: "Changed since" }, { key: org.apiKey })
      const again = yield* patch(`/api/v1/clients/${client.id}`, { name: "P2" }, { key: org.apiKey, headers: withKey("k-7") })
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.body).toEqual(first.body)
      expect((yield* get(`/api/v1/clients/${client.id}`, { key: org.apiKey })).body.name).toBe("Changed since")
    }))

  it.effect("records expire after 24 hours; the purge removes them", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      expect((yield* post("/api/v1/clients", { name: "Old" }, { key: org.apiKey, headers: withKey("k-8") })).status).toBe(201)
      yield* clock.advance("23 hours")
      expectError(yield* post("/api/v1/clients", { name: "New" }, { key: org.apiKey, headers: withKey("k-8") }), 409, "idempotency_key_reused")
      yield* clock.advance("61 minutes")
      const reused = yield* post("/api/v1/clients", { name: "New" }, { key: org.apiKey, headers: withKey("k-8") })
      expect(reused.status).toBe(201)
      expect(reused.headers.get("idempotent-replayed")).toBeNull()

      yield* clock.advance("25 hours")
      const purged = yield* server.withSql(Effect.flatMap(IdempotencyStore, (store) => store.purgeExpired).pipe(
        Effect.provide(IdempotencyStore.layer),
        Effect.provideService(Clock.Clock, clock)
      ))
      expect(purged).toBeGreaterThanOrEqual(1)
      const left = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= ${new Date(clock.currentTimeMillisUnsafe())}`))
      expect(left[0].n).toBe(0)
    }))

  it.effect("storing an answer never overwrites a live record (a lost race), only an expired one", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const principal: Principal = {
        organizationId: OrganizationId.make(org.organizationId),
        businessId: BusinessId.make(org.businessId),
        scopes: new Set<string>(),
        credentialId: `key:${org.apiKeyId}`,
        kind: "api_key"
      }
      const answer = (body: string) => ({ fingerprint: "f", status: 201, headers: {}, body })
      const now = clock.currentTimeMillisUnsafe()
      const results = yield* server.withSql(Effect.flatMap(IdempotencyStore, (store) =>
        Effect.all([
          store.save(principal, "race", now, answer("winner")),
          store.save(principal, "race", now + 1000, answer("loser")),
          store.find(principal, "race", now + 2000),
          store.save(principal, "race", now + 25 * 3600 * 1000, answer("after expiry"))
        ])
      ).pipe(Effect.provide(IdempotencyStore.layer)))
      expect(results[0]).toBe(true)
      expect(results[1]).toBe(false)
      expect(results[2].pipe((o) => (o._tag === "Some" ? o.value.body : undefined))).toBe("winner")
      expect(results[3]).toBe(true)
    }))
})
