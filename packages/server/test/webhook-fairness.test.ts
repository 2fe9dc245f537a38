import { expect, layer } from "@effect/vitest"
import { SqlClient } from "effect/sql"
import { MAX_SUBSCRIPTIONS_PER_ORGANIZATION } from "@bizops/domain"
import { makeWorker, MAX_IN_FLIGHT_PER_ORGANIZATION, MAX_IN_FLIGHT_PER_SUBSCRIPTION } from "@bizops/webhooks"
import { del, effectProp, expectError, makeTestServer, post, realSleep, receiver, receiverOn, ShiftedClock, TestServer } from "@bizops/testkit"
import { Array as Arr, Effect } from "effect"
import * as fc from "fast-check"
import { randomUUID } from "node:crypto"

const subscribe = (key: string, url: string, extra: Record<string, unknown> = {}) =>
  Effect.map(post("/api/v1/webhooks", { url, events: ["*"], ...extra }, { key }), (res) => {
    expect(res.status, res.text).toBe(201)
    return res.body as { id: string }
  })

/**
 * Organization A: 20 subscriptions to a receiver that answers after `answerAfterMs`, and `clients` new
 * clients, so 20 × `clients` deliveries are due at once; returns once `arrived` of them reached the receiver.
 */
const flood = (answerAfterMs: number, clients: number, arrived: number) =>
  Effect.gen(function*() {
    const a = yield* (yield* TestServer).organization()
    const target = yield* receiverOn(0, { answerAfterMs })
    for (let i = 0; i < 20; i++) yield* subscribe(a.apiKey, target.url)
    yield* Effect.forEach(Array.from({ length: clients }, (_, i) => i), (i) => post("/api/v1/clients", { name: `Flood ${i}` }, { key: a.apiKey }), {
      concurrency: 6,
      discard: true
    })
    yield* target.waitFor(arrived, 10)
    return target
  })

/** Organization B: one subscription and a test ping; the ping as received, checked to arrive within 10 s. */
const pingFromAnotherOrganization = Effect.gen(function*() {
  const b = yield* (yield* TestServer).organization()
  const fast = yield* receiver
  const hook = yield* subscribe(b.apiKey, fast.url)
  const sentAt = Date.now()
  expect((yield* post(`/api/v1/webhooks/${hook.id}/test`, {}, { key: b.apiKey })).status).toBe(202)
  const got = yield* fast.waitFor(1, 10)
  expect(got).toHaveLength(1)
  expect(JSON.parse(got[0].body).type).toBe("ping")
  expect(got[0].at - sentAt).toBeLessThan(10_000)
  return got[0]
})

// The server runs on real time (a ShiftedClock never shifted), not on the test clock that would stop its worker.
layer(makeTestServer({ clock: new ShiftedClock(), config: { webhooksAllowInsecure: true } }))("webhook delivery is fair", (it) => {
  it.effect("one organization's flood does not hold back another's ping: it arrives within 10 s", () =>
    Effect.gen(function*() {
      // A's receiver takes a second to answer; 60 clients make 1,200 deliveries.
      const slow = yield* flood(1000, 60, 1)
      const ping = yield* pingFromAnotherOrganization
      // A's backlog was still there when B's ping arrived.
      expect(slow.received().filter((r) => r.at <= ping.at).length).toBeLessThan(1200)
    }))
})

layer(makeTestServer({ clock: new ShiftedClock(), config: { webhooksAllowInsecure: true } }))("webhook delivery is fair when receivers hang", (it) => {
  it.effect(`receivers that never answer hold at most ${MAX_IN_FLIGHT_PER_ORGANIZATION} of an instance's slots: another organization's ping arrives within 10 s`, () =>
    Effect.gen(function*() {
      // A's receiver never answers (each attempt waits out the 15 s timeout); 10 clients make 200 deliveries,
      // more than the instance's 64 slots.
      const hanging = yield* flood(60_000, 10, MAX_IN_FLIGHT_PER_ORGANIZATION)
      const ping = yield* pingFromAnotherOrganization
      // A held no more than its share of the instance while its receivers hung.
      expect(hanging.received().filter((r) => r.at <= ping.at).length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_ORGANIZATION)
    }))
})

layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("webhook subscription quota", (it) => {
  it.effect(`an organization holds at most ${MAX_SUBSCRIPTIONS_PER_ORGANIZATION} subscriptions, disabled ones included; the next is 409 quota_exceeded`, () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const ids: Array<string> = []
      for (let i = 0; i < 95; i++) ids.push((yield* subscribe(org.apiKey, `https://example.com/hook/${i}`, { enabled: i % 2 === 0 })).id)
      // Ten at once for the last five places: exactly five get one.
      const raced = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => i),
        (i) => post("/api/v1/webhooks", { url: `https://example.com/race/${i}`, events: ["*"] }, { key: org.apiKey }),
        { concurrency: 10 }
      )
      expect(raced.filter((r) => r.status === 201)).toHaveLength(5)
      for (const refused of raced.filter((r) => r.status !== 201)) {
        expectError(refused, 409, "conflict", "quota_exceeded")
        expect(refused.body.error.message).toContain("at most 100")
      }
      expectError(yield* post("/api/v1/webhooks", { url: "https://example.com/101", events: ["*"] }, { key: org.apiKey }), 409, "conflict", "quota_exceeded")
      // Another organization has its own quota; deleting one frees a place.
      const other = yield* server.organization()
      yield* subscribe(other.apiKey, "https://example.com/other")
      expect((yield* del(`/api/v1/webhooks/${ids[0]}`, { key: org.apiKey })).status).toBe(204)
      yield* subscribe(org.apiKey, "https://example.com/again")
      expectError(yield* post("/api/v1/webhooks", { url: "https://example.com/102", events: ["*"] }, { key: org.apiKey }), 409, "conflict", "quota_exceeded")
    }))
})

// The claim's rules, checked on the database itself: what one worker takes from random subscriptions of
// random organizations, some of their deliveries already leased (by any instance), some not yet due.
const subscriptionCase = fc.record({
  /** Due deliveries, by age in seconds. */
  due: fc.array(fc.nat({ max: 3600 }), { maxLength: 12 }),
  /** Deliveries leased now (in flight on some instance). */
  leased: fc.nat({ max: MAX_IN_FLIGHT_PER_SUBSCRIPTION + 1 }),
  /** Due deliveries whose lease ran out (their worker died): claimable again. */
  expired: fc.nat({ max: 2 }),
  /** Pending deliveries not due yet. */
  later: fc.nat({ max: 2 })
})
const organizationCase = fc.record({
  /** What this instance already has in flight for the organization. */
  busy: fc.nat({ max: MAX_IN_FLIGHT_PER_ORGANIZATION + 4 }),
  subscriptions: fc.array(subscriptionCase, { minLength: 1, maxLength: 4 })
})

/** A moment no real clock reaches during the test, so the server's own worker never takes these. */
const NOW = new Date("2200-01-01T00:00:00Z")
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000)

/** The generated organizations and their subscriptions are never empty (minLength 1); `sql.insert` wants the type to say so. */
const nonEmpty = <A>(rows: Array<A>): Arr.NonEmptyArray<A> => {
  if (!Arr.isArrayNonEmpty(rows)) throw new Error("no rows to insert")
  return rows
}

layer(makeTestServer({ clock: new ShiftedClock(), config: { webhooksAllowInsecure: true } }))("the claim", (it) => {
  effectProp(
    it,
    "takes at most the free slots, within each subscription's and organization's bounds, oldest first per subscription, round-robin across subscriptions, and to the organizations with the least in flight first",
    [fc.array(organizationCase, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 64 })],
    ([organizations, limit]) =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const worker = yield* server.withSql(makeWorker({ allowInsecure: true }))
        const orgs = organizations.map((o) => ({
          ...o,
          id: randomUUID(),
          eventId: randomUUID(),
          subscriptions: o.subscriptions.map((s) => ({ ...s, id: randomUUID() }))
        }))
        const insert = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO organizations ${sql.insert(nonEmpty(orgs.map((o) => ({ id: o.id, name: "Claim" }))))}`
          yield* sql`INSERT INTO webhook_events ${sql.insert(nonEmpty(orgs.map((o) => ({ id: o.eventId, organizationId: o.id, type: "ping", body: "{}", createdAt: NOW }))))}`
          const subscriptions = orgs.flatMap((o) => o.subscriptions.map((s) => ({ o, s })))
          yield* sql`INSERT INTO webhooks ${sql.insert(nonEmpty(subscriptions.map(({ o, s }) => ({ id: s.id, organizationId: o.id, url: "http://127.0.0.1:9/hook", events: ["*"] }))))}`
          const rows = subscriptions.flatMap(({ o, s }) => {
            const row = (nextAttemptAt: Date, leasedUntil: Date | null) => ({
              id: randomUUID(),
              organizationId: o.id,
              webhookId: s.id,
              eventId: o.eventId,
              status: "pending",
              nextAttemptAt,
              leasedUntil
            })
            return [
              ...s.due.map((age) => row(at(-age), null)),
              ...Array.from({ length: s.leased }, (_, i) => row(at(-4000 - i), at(60))),
              ...Array.from({ length: s.expired }, (_, i) => row(at(-100 - i), at(-1))),
              ...Array.from({ length: s.later }, (_, i) => row(at(10 + i), null))
            ]
          })
          if (Arr.isArrayNonEmpty(rows)) yield* sql`INSERT INTO webhook_deliveries ${sql.insert(rows)}`
          // Each subscription's claimable deliveries, oldest first: what a claim must take from the front of.
          const claimable = yield* sql<{ readonly id: string; readonly webhookId: string }>`SELECT id, webhook_id FROM webhook_deliveries
            WHERE organization_id IN ${sql.in(orgs.map((o) => o.id))} AND status = 'pending' AND next_attempt_at <= ${NOW}
              AND (leased_until IS NULL OR leased_until <= ${NOW})
            ORDER BY next_attempt_at, id`
          return claimable
        })
        const cleanup = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const ids = orgs.map((o) => o.id)
          yield* sql`DELETE FROM webhooks WHERE organization_id IN ${sql.in(ids)}`
          yield* sql`DELETE FROM webhook_events WHERE organization_id IN ${sql.in(ids)}`
          yield* sql`DELETE FROM organizations WHERE id IN ${sql.in(ids)}`
        })
        const [claimable, claimed] = yield* server.withSql(Effect.gen(function*() {
          const claimable = yield* insert
          const busy = new Map(orgs.filter((o) => o.busy > 0).map((o) => [o.id, o.busy]))
          const claimed = yield* worker.claim(NOW, limit, busy)
          return [claimable, claimed] as const
        }).pipe(Effect.ensuring(Effect.orDie(server.withSql(cleanup)))))

        expect(claimed.length).toBeLessThanOrEqual(limit)
        expect(new Set(claimed.map((c) => c.id)).size).toBe(claimed.length)
        const taken = (webhookId: string) => claimed.filter((c) => c.webhookId === webhookId).map((c) => c.id)
        const summary = orgs.map((o) => {
          const subscriptions = o.subscriptions.map((s) => {
            const available = claimable.filter((c) => c.webhookId === s.id).map((c) => c.id)
            const ids = taken(s.id)
            // Oldest first: the claimed are the front of the subscription's claimable deliveries.
            expect(ids.toSorted()).toEqual(available.slice(0, ids.length).toSorted())
            // Never more in flight than the bound, counting the leases of every instance.
            expect(s.leased + ids.length <= MAX_IN_FLIGHT_PER_SUBSCRIPTION || ids.length === 0).toBe(true)
            const offers = Math.min(Math.max(MAX_IN_FLIGHT_PER_SUBSCRIPTION - s.leased, 0), available.length)
            return { taken: ids.length, more: ids.length < offers }
          })
          const total = subscriptions.reduce((n, s) => n + s.taken, 0)
          // Never more of this instance's slots than the organization's share.
          expect(o.busy + total <= MAX_IN_FLIGHT_PER_ORGANIZATION || total === 0).toBe(true)
          // Round-robin across the organization's subscriptions: one that could give more has not been
          // passed over by more than one round.
          for (const s of subscriptions.filter((x) => x.more)) {
            for (const t of subscriptions) expect(t.taken).toBeLessThanOrEqual(s.taken + 1)
          }
          const more = o.busy + total < MAX_IN_FLIGHT_PER_ORGANIZATION && subscriptions.some((x) => x.more)
          return { level: o.busy + total, taken: total, more }
        })
        // Work-conserving: fewer than the free slots only when no organization could give more.
        if (claimed.length < limit) expect(summary.filter((o) => o.more)).toEqual([])
        // Least in flight first: an organization that could give more is at most one delivery behind any
        // organization that got some (ties go to the oldest).
        for (const x of summary.filter((o) => o.more)) {
          for (const y of summary.filter((o) => o.taken > 0)) expect(y.level).toBeLessThanOrEqual(x.level + 1)
        }
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("deleting a subscription cancels its pending deliveries", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const target = yield* receiver
      target.respondWith([500])
      const hook = yield* subscribe(org.apiKey, target.url)
      expect((yield* post("/api/v1/clients", { name: "Retried" }, { key: org.apiKey })).status).toBe(201)
      const pending = server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries
          WHERE organization_id = ${org.organizationId} AND webhook_id = ${hook.id} AND status = 'pending' AND attempt_count = 1`))
      // The first attempt failed (500); the retry is due 5 s later.
      for (let i = 0; i < 100 && (yield* pending)[0].n === 0; i++) yield* realSleep(50)
      expect((yield* pending)[0].n).toBe(1)
      expect((yield* del(`/api/v1/webhooks/${hook.id}`, { key: org.apiKey })).status).toBe(204)
      const left = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ${org.organizationId}`))
      expect(left[0].n).toBe(0)
      // The retry never comes.
      yield* realSleep(7000)
      expect(target.received()).toHaveLength(1)
    }))
})
