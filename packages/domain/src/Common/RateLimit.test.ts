import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { countRequest, decide, rateLimitHeaders, type RateWindow, WINDOW_MS } from "./RateLimit.js"

/** Request times: a start and increasing gaps, some far beyond a window. */
const times = fc.tuple(
  fc.integer({ min: 0, max: 2_000_000_000_000 }),
  fc.array(fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 3 * WINDOW_MS })), { maxLength: 300 })
).map(([start, gaps]) => gaps.reduce<Array<number>>((acc, gap) => [...acc, (acc.at(-1) ?? start) + gap], [start]))

const limit = fc.integer({ min: 1, max: 50 })

describe("rate-limit windows", () => {
  prop("never more than the limit accepted in one window; remaining never negative; reset in the future", [times, limit], ([ts, max]) => {
    let window: RateWindow | undefined
    const acceptedIn = new Map<number, number>()
    for (const now of ts) {
      window = countRequest(window, now)
      const decision = decide(window, max, now)
      expect(decision.remaining).toBeGreaterThanOrEqual(0)
      expect(decision.resetAt).toBeGreaterThan(now)
      expect(decision.resetInSeconds).toBeGreaterThanOrEqual(1)
      expect(window.start).toBeLessThanOrEqual(now)
      expect(now - window.start).toBeLessThan(WINDOW_MS)
      if (decision.allowed) acceptedIn.set(window.start, (acceptedIn.get(window.start) ?? 0) + 1)
    }
    for (const accepted of acceptedIn.values()) expect(accepted).toBeLessThanOrEqual(max)
  })

  prop("a window allows exactly the first `limit` requests, then refuses until it ends", [limit, fc.integer({ min: 0, max: 1e12 })], ([max, start]) => {
    let window: RateWindow | undefined
    const allowed: Array<boolean> = []
    for (let i = 0; i < max + 5; i++) {
      window = countRequest(window, start + i)
      allowed.push(decide(window, max, start + i).allowed)
    }
    expect(allowed.filter(Boolean)).toHaveLength(max)
    expect(allowed.slice(0, max).every(Boolean)).toBe(true)
    const next = countRequest(window, start + WINDOW_MS)
    expect(next).toEqual({ start: start + WINDOW_MS, count: 1 })
    expect(decide(next, max, start + WINDOW_MS).allowed).toBe(true)
  })

  it("headers: the contract's and the IETF draft's, Retry-After only when refused", () => {
    const ok = rateLimitHeaders(decide({ start: 0, count: 1 }, 1000, 1_000))
    expect(ok).toEqual({
      "x-ratelimit-limit": "1000",
      "x-ratelimit-remaining": "999",
      "x-ratelimit-reset": "3600",
      "ratelimit-policy": "\"hourly\";q=1000;w=3600",
      "ratelimit": "\"hourly\";r=999;t=3599"
    })
    const refused = rateLimitHeaders(decide({ start: 0, count: 11 }, 10, 3_000_000))
    expect(refused["retry-after"]).toBe("600")
    expect(refused["x-ratelimit-remaining"]).toBe("0")
  })
})
