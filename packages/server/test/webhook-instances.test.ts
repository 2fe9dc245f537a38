import { expect, layer } from "@effect/vitest"
import { makeTestServer, realSleep, receiver, receiverOn, serverProcess, TestServer, verifiedWith } from "@bizops/testkit"
import { freePort } from "@bizops/server"
import { Effect } from "effect"

const SECRET = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"

// The in-process test server runs a worker too (on the real clock), with the same settings as the two
// processes, so that any instance may take a delivery: each must still arrive exactly once.
layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("webhook workers in two processes", (it) => {
  it.effect("deliver each event once, and never print the secret", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      const env = { DATABASE_URL: server.databaseUrl, WEBHOOKS_ALLOW_INSECURE: "1" }
      const [a, b] = yield* Effect.all([serverProcess(env), serverProcess(env)], { concurrency: 2 })
      const org = yield* server.organization()
      const key = { "x-api-key": org.apiKey, "content-type": "application/json" }
      const subscribed = yield* Effect.promise(() =>
        fetch(`${a.url}/api/v1/webhooks`, { method: "POST", headers: key, body: JSON.stringify({ url: hook.url, events: ["client_created"], secret: SECRET }) })
          .then((r) => r.text()))
      expect(subscribed).not.toContain(SECRET.slice(6))
      const count = 20
      yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
        Effect.promise(() =>
          fetch(`${(i % 2 === 0 ? a : b).url}/api/v1/clients`, { method: "POST", headers: key, body: JSON.stringify({ name: `C${i}` }) })
            .then((r) => r.text())), { concurrency: 4 })
      const got = yield* hook.waitFor(count, 30)
      // Time for a duplicate to arrive, if a second worker were to send one (real time: it.effect's clock is a test clock).
      yield* realSleep(2000)
      const all = hook.received()
      expect(all).toHaveLength(count)
      const ids = all.map(verifiedWith(SECRET))
      expect(new Set(ids.map((e) => e.id)).size).toBe(count)
      expect(got.length).toBe(count)
      expect(a.output() + b.output()).not.toContain(SECRET.slice(6))
    })), { timeout: 120_000 })

  it.effect("a server killed after the commit, before the delivery succeeded: another instance delivers it", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* TestServer
      const port = yield* freePort
      const hookUrl = `http://127.0.0.1:${port}/hook`
      const env = { DATABASE_URL: server.databaseUrl, WEBHOOKS_ALLOW_INSECURE: "1" }
      const org = yield* server.organization()
      const key = { "x-api-key": org.apiKey, "content-type": "application/json" }
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const a = yield* serverProcess(env)
        yield* Effect.promise(() =>
          fetch(`${a.url}/api/v1/webhooks`, { method: "POST", headers: key, body: JSON.stringify({ url: hookUrl, events: ["client_created"], secret: SECRET }) }))
        const created = yield* Effect.promise(() =>
          fetch(`${a.url}/api/v1/clients`, { method: "POST", headers: key, body: JSON.stringify({ name: "Survivor" }) }).then((r) => r.json() as Promise<{ id: string }>))
        // The receiver is not there yet: the first attempt fails; then the process dies hard.
        yield* realSleep(1500)
        a.child.kill("SIGKILL")
        return created
      }))
      const hook = yield* receiverOn(port)
      yield* serverProcess(env)
      const got = yield* hook.waitFor(1, 30)
      expect(got).toHaveLength(1)
      const event = verifiedWith(SECRET)(got[0])
      expect(event.data.object.id).toBe(first.id)
    })), { timeout: 120_000 })
})
