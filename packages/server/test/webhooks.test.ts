import { expect, layer } from "@effect/vitest"
import { SqlClient } from "effect/sql"
import { del, expectError, get, makeTestServer, NIL, patch, post, receiver, ShiftedClock, TestServer } from "@bizops/testkit"
import { realSleep, subscribe, verified, WEBHOOK_SECRET as SECRET } from "@bizops/testkit"
import { Effect } from "effect"

const clock = new ShiftedClock()

layer(makeTestServer({ clock, config: { webhooksAllowInsecure: true } }))("webhooks", (it) => {
  it.effect("subscriptions: create, get, list, update, delete; the secret is write-only", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const created = yield* post("/api/v1/webhooks", { url: "https://example.com/hook", events: ["client_created"], secret: SECRET, description: "CRM sync" }, { key: org.apiKey })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ url: "https://example.com/hook", events: ["client_created"], description: "CRM sync", enabled: true, hasSecret: true })
      expect(created.text).not.toContain(SECRET.slice(6))
      const id = created.body.id
      expect((yield* get(`/api/v1/webhooks/${id}`, { key: org.apiKey })).body).toEqual(created.body)
      expect((yield* get("/api/v1/webhooks", { key: org.apiKey })).body.data.map((w: any) => w.id)).toEqual([id])
      const updated = yield* patch(`/api/v1/webhooks/${id}`, { secret: null, events: ["client_created", "contact_deleted"] }, { key: org.apiKey })
      expect(updated.body).toMatchObject({ hasSecret: false, events: ["client_created", "contact_deleted"] })
      for (const res of [created, updated]) expect(JSON.stringify(res.body)).not.toMatch(/secret"/)
      expect((yield* del(`/api/v1/webhooks/${id}`, { key: org.apiKey })).status).toBe(204)
      expectError(yield* get(`/api/v1/webhooks/${id}`, { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("400 on unknown events, a bad secret, a bad URL; 401, 403; another organization's subscription is 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const bad: Array<[unknown, string]> = [
        [{ url: "https://example.com", events: ["client_exploded"] }, "events"],
        [{ url: "https://example.com", events: [] }, "events"],
        [{ url: "https://example.com", events: ["*", "client_created"] }, "events"],
        [{ url: "not a url", events: ["*"] }, "url"],
        [{ url: "ftp://example.com/x", events: ["*"] }, "url"],
        [{ url: "https://example.com", events: ["*"], secret: "hunter2" }, "secret"],
        [{ url: "https://example.com", events: ["*"], hasSecret: true }, "hasSecret"]
      ]
      for (const [body, field] of bad) {
        const res = yield* post("/api/v1/webhooks", body, { key: org.apiKey })
        expectError(res, 400, "invalid_request", "invalid_payload")
        expect(res.body.error.details.issues[0].path[0]).toBe(field)
      }
      expect((yield* get("/api/v1/webhooks", { key: org.apiKey })).body.pagination.total).toBe(0)
      expectError(yield* get("/api/v1/webhooks"), 401, "unauthorized")
      const reader = yield* server.organization(["webhooks:read"])
      expectError(yield* post("/api/v1/webhooks", { url: "https://example.com", events: ["*"] }, { key: reader.apiKey }), 403, "forbidden")
      const other = yield* server.organization()
      const theirs = yield* subscribe(other.apiKey, "https://example.com/theirs")
      expectError(yield* get(`/api/v1/webhooks/${theirs.id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/webhooks/${theirs.id}`, { enabled: false }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/webhooks/${theirs.id}/deliveries`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* post(`/api/v1/webhooks/${theirs.id}/test`, {}, { key: org.apiKey }), 404, "not_found")
      expectError(yield* post(`/api/v1/webhooks/${theirs.id}/deliveries/${NIL}/redeliver`, {}, { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("the event catalog lists every subscribable event with its payload schema", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization(["webhooks:read"])
      const res = yield* get("/api/v1/webhook-events?pageSize=100", { key: org.apiKey })
      expect(res.status).toBe(200)
      const names = res.body.data.map((e: any) => e.name)
      for (const name of ["client_created", "client_updated", "client_deleted", "contact_updated", "project_deleted", "invoice_refunded", "sale_voided", "contract_amended"]) {
        expect(names).toContain(name)
      }
      expect(res.body.data[0].payloadSchema).toBeTypeOf("object")
      expect(names).not.toContain("ping")
      const total = res.body.pagination.total
      expect(total).toBe(names.length)
      const second = yield* get("/api/v1/webhook-events?pageSize=5&page=2", { key: org.apiKey })
      expect(second.body.data.map((e: any) => e.name)).toEqual(names.slice(5, 10))
      expect(second.body.pagination).toEqual({ page: 2, pageSize: 5, total, totalPages: Math.ceil(total / 5), hasMore: true })
      expect((yield* get("/api/v1/webhook-events?page=99", { key: org.apiKey })).body.data).toEqual([])
      expectError(yield* get("/api/v1/webhook-events?pageSize=101", { key: org.apiKey }), 400, "invalid_request")
      // The catalog belongs to the webhooks resource: webhooks:read, not some other scope.
      const other = yield* (yield* TestServer).organization(["clients:read"])
      expectError(yield* get("/api/v1/webhook-events", { key: other.apiKey }), 403, "forbidden")
      expectError(yield* get("/api/v1/webhook-events"), 401, "unauthorized")
    }))

  it.effect("created, updated and deleted events arrive signed, with the resource and previousAttributes", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["client_created", "client_updated", "client_deleted"])
      const client = (yield* post("/api/v1/clients", { name: "Ada", status: "new" }, { key: org.apiKey })).body
      const updated = (yield* patch(`/api/v1/clients/${client.id}`, { status: "active" }, { key: org.apiKey })).body
      expect((yield* del(`/api/v1/clients/${client.id}`, { key: org.apiKey })).status).toBe(204)
      // Not subscribed: no delivery.
      yield* post("/api/v1/contacts", { name: "Nobody" }, { key: org.apiKey })
      const got = yield* hook.waitFor(3)
      expect(got).toHaveLength(3)
      const events = got.map((r) => verified(r)).sort((a, b) => a.type.localeCompare(b.type))
      expect(events.map((e) => e.type)).toEqual(["client_created", "client_deleted", "client_updated"])
      expect(events[0].data.object).toEqual(client)
      expect(events[2].data.object).toEqual(updated)
      expect(events[2].data.previousAttributes).toEqual({ status: "new", updatedAt: client.updatedAt })
      expect(events[1].data.object.id).toBe(client.id)
      expect(got.every((r) => r.headers["content-type"]?.includes("application/json"))).toBe(true)
      // A tampered body does not verify.
      expect(() => verified({ ...got[0], body: got[0].body.replace("Ada", "Eve") })).toThrow()
    })))

  it.effect("a test delivery sends a signed ping", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      const webhook = yield* subscribe(org.apiKey, hook.url, ["client_created"])
      const queued = yield* post(`/api/v1/webhooks/${webhook.id}/test`, {}, { key: org.apiKey })
      expect(queued.status).toBe(202)
      expect(queued.body.eventType).toBe("ping")
      const [ping] = yield* hook.waitFor(1)
      expect(verified(ping).type).toBe("ping")
    })))

  it.effect("a delivery claimed by a worker that died is sent again when its lease ends", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["client_created"])
      // New deliveries start out leased for a minute, as if a worker had claimed them and died.
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
        CREATE OR REPLACE FUNCTION lease_new_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.leased_until := NEW.next_attempt_at + interval '60 seconds'; RETURN NEW; END $$`))
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
        CREATE TRIGGER lease_new_deliveries BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION lease_new_deliveries()`))
      yield* post("/api/v1/clients", { name: "Crash" }, { key: org.apiKey })
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP TRIGGER lease_new_deliveries ON webhook_deliveries`))
      expect(yield* hook.waitFor(1, 2)).toHaveLength(0)
      yield* clock.advance("61 seconds")
      const got = yield* hook.waitFor(1)
      expect(got).toHaveLength(1)
      expect(verified(got[0]).data.object.name).toBe("Crash")
    })))
})

// Moving the clock by minutes here would put later signatures outside the verifier's 5-minute tolerance,
// so the retry schedule runs on a server and a clock of its own.
const retryClock = new ShiftedClock()

layer(makeTestServer({ clock: retryClock, config: { webhooksAllowInsecure: true } }))("webhook retries", (it) => {
  it.effect("a receiver answering 500 twice then 200 gets three attempts, and the delivery succeeds once", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      hook.respondWith([500, 500])
      const webhook = yield* subscribe(org.apiKey, hook.url, ["project_created"])
      const client = (yield* post("/api/v1/clients", { name: "C" }, { key: org.apiKey })).body
      yield* post("/api/v1/projects", { name: "P", clientId: client.id }, { key: org.apiKey })
      expect(yield* hook.waitFor(1)).toHaveLength(1)
      yield* retryClock.advance("5 seconds")
      expect(yield* hook.waitFor(2)).toHaveLength(2)
      yield* retryClock.advance("5 minutes")
      const got = yield* hook.waitFor(3)
      expect(got).toHaveLength(3)
      expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1)
      yield* realSleep(300)
      const deliveries = (yield* get(`/api/v1/webhooks/${webhook.id}/deliveries`, { key: org.apiKey })).body
      expect(deliveries.data).toHaveLength(1)
      const delivery = deliveries.data[0]
      expect(delivery.status).toBe("succeeded")
      expect(delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 500, 200])
      expect(delivery.event.type).toBe("project_created")
      // Redelivery sends it once more.
      const again = yield* post(`/api/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`, {}, { key: org.apiKey })
      expect(again.status).toBe(202)
      expect(again.body.status).toBe("pending")
      expect(yield* hook.waitFor(4)).toHaveLength(4)
    })))

  it.effect("a subscription failing for 5 days in a row is disabled", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      hook.respondWith(Array.from({ length: 20 }, () => 500))
      const webhook = yield* subscribe(org.apiKey, hook.url, ["client_created"])
      yield* post("/api/v1/clients", { name: "One" }, { key: org.apiKey })
      expect(yield* hook.waitFor(1)).toHaveLength(1)
      expect((yield* get(`/api/v1/webhooks/${webhook.id}`, { key: org.apiKey })).body.enabled).toBe(true)
      // Five days on, the retry that falls due fails too: five days of failures in a row.
      yield* retryClock.advance("5 days")
      expect(yield* hook.waitFor(2)).toHaveLength(2)
      yield* realSleep(500)
      expect((yield* get(`/api/v1/webhooks/${webhook.id}`, { key: org.apiKey })).body.enabled).toBe(false)
      // Enabled again, it starts a new count.
      expect((yield* patch(`/api/v1/webhooks/${webhook.id}`, { enabled: true }, { key: org.apiKey })).body.enabled).toBe(true)
    })))
})
