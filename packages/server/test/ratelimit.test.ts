import { expect, layer } from "@effect/vitest"
import { expectError, get, makeTestServer, NIL, post, ShiftedClock, TestServer } from "@bizops/testkit"
import { Effect } from "effect"

const clock = new ShiftedClock()

layer(makeTestServer({ clock }))("rate limit per key", (it) => {
  it.effect("every authenticated response carries the rate-limit headers", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const before = Math.floor(clock.currentTimeMillisUnsafe() / 1000)
      const first = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(first.headers.get("x-ratelimit-limit")).toBe("1000")
      expect(first.headers.get("x-ratelimit-remaining")).toBe("999")
      const reset = Number(first.headers.get("x-ratelimit-reset"))
      expect(reset).toBeGreaterThanOrEqual(before + 3599)
      expect(reset).toBeLessThanOrEqual(before + 3601)
      expect(first.headers.get("ratelimit-policy")).toBe("\"hourly\";q=1000;w=3600")
      expect(first.headers.get("ratelimit")).toMatch(/^"hourly";r=999;t=(3599|3600)$/)
      // Errors count and carry the headers too.
      const missing = yield* get(`/api/v1/clients/${NIL}`, { key: org.apiKey })
      expectError(missing, 404, "not_found")
      expect(missing.headers.get("x-ratelimit-remaining")).toBe("998")
      const invalid = yield* post("/api/v1/clients", { name: "" }, { key: org.apiKey })
      expect(invalid.headers.get("x-ratelimit-remaining")).toBe("997")
      expect(invalid.headers.get("x-ratelimit-reset")).toBe(first.headers.get("x-ratelimit-reset"))
    }))

  it.effect("a key over its limit gets 429 with Retry-After until its window ends", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization(["clients:read"], { rateLimit: 3 })
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) statuses.push((yield* get("/api/v1/clients", { key: org.apiKey })).status)
      // A request refused for its scope still counts.
      statuses.push((yield* post("/api/v1/clients", { name: "A" }, { key: org.apiKey })).status)
      expect(statuses).toEqual([200, 200, 200, 429])
      const refused = yield* get("/api/v1/clients", { key: org.apiKey })
      expectError(refused, 429, "rate_limited")
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0")
      const retryAfter = Number(refused.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThan(3500)
      expect(retryAfter).toBeLessThanOrEqual(3600)
      // Another key of the same organization has its own window.
      const other = yield* server.organization(["clients:read"], { rateLimit: 3 })
      expect((yield* get("/api/v1/clients", { key: other.apiKey })).status).toBe(200)

      yield* clock.advance("59 minutes")
      expect((yield* get("/api/v1/clients", { key: org.apiKey })).status).toBe(429)
      yield* clock.advance("61 seconds")
      const fresh = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(fresh.status).toBe(200)
      expect(fresh.headers.get("x-ratelimit-remaining")).toBe("2")
    }))
})

layer(makeTestServer({ clock: new ShiftedClock() }))("rate limit of failed authentication", (it) => {
  it.effect("after 100 refusals with 401 in a minute, an address gets 429 without database work", () =>
    Effect.gen(function*() {
      const statuses: Array<number> = []
      for (let i = 0; i < 101; i++) {
        statuses.push((yield* get("/api/v1/clients", { key: `bok_${"x".repeat(43)}` })).status)
      }
      expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true)
      expect(statuses[100]).toBe(429)
      const refused = yield* get("/api/v1/clients")
      expectError(refused, 429, "rate_limited")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }))
})
