import { expect, layer } from "@effect/vitest"
import { MAX_SUBSCRIPTIONS_PER_ORGANIZATION } from "@bizops/domain"
import { del, expectError, makeTestServer, post, receiver, receiverOn, ShiftedClock, TestServer } from "@bizops/testkit"
import { Effect } from "effect"

const subscribe = (key: string, url: string, extra: Record<string, unknown> = {}) =>
  Effect.map(post("/api/v1/webhooks", { url, events: ["*"], ...extra }, { key }), (res) => {
    expect(res.status, res.text).toBe(201)
    return res.body as { id: string }
  })

// The server runs on real time (a ShiftedClock never shifted), not on the test clock that would stop its worker.
layer(makeTestServer({ clock: new ShiftedClock(), config: { webhooksAllowInsecure: true } }))("webhook delivery is fair", (it) => {
  it.scoped("one organization's flood does not hold back another's ping: it arrives within 10 s", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // Organization A: 20 subscriptions to a receiver that takes a second to answer, and 60 new clients,
      // so 1,200 deliveries are due at once.
      const a = yield* server.organization()
      const slow = yield* receiverOn(0, { answerAfterMs: 1000 })
      for (let i = 0; i < 20; i++) yield* subscribe(a.apiKey, slow.url)
      yield* Effect.forEach(Array.from({ length: 60 }, (_, i) => i), (i) => post("/api/v1/clients", { name: `Flood ${i}` }, { key: a.apiKey }), {
        concurrency: 6,
        discard: true
      })
      yield* slow.waitFor(1, 10)
      // Organization B: one subscription and a test ping, sent while A's backlog is being delivered.
      const b = yield* server.organization()
      const fast = yield* receiver
      const hook = yield* subscribe(b.apiKey, fast.url)
      const sentAt = Date.now()
      const ping = yield* post(`/api/v1/webhooks/${hook.id}/test`, {}, { key: b.apiKey })
      expect(ping.status).toBe(202)
      const got = yield* fast.waitFor(1, 10)
      expect(got).toHaveLength(1)
      expect(JSON.parse(got[0].body).type).toBe("ping")
      expect(got[0].at - sentAt).toBeLessThan(10_000)
      // A's backlog was still there when B's ping arrived.
      expect(slow.received().filter((r) => r.at <= got[0].at).length).toBeLessThan(1200)
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
