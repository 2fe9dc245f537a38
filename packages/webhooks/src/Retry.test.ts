import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { prop } from "@bizops/testkit/Prop"
import {
  DELIVERY_TIMEOUT,
  DISABLE_AFTER,
  isSuccessStatus,
  MAX_ATTEMPTS,
  nextAttemptAt,
  nextAttemptDelay,
  retrySchedule,
  shouldDisableSubscription
} from "./Retry.js"

const millis = (attemptsSoFar: number): number | undefined =>
  Option.getOrUndefined(Option.map(nextAttemptDelay(attemptsSoFar), Duration.toMillis))

/** The waits of a delivery that always fails: one per attempt, until there is none. */
const allWaits = (): Array<number> => {
  const waits: Array<number> = []
  for (let attempts = 0; ; attempts++) {
    const wait = millis(attempts)
    if (wait === undefined) return waits
    waits.push(wait)
  }
}

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const TOTAL_WAIT = 27 * HOUR + 35 * MINUTE + 5 * SECOND

describe("nextAttemptDelay", () => {
  it.each([
    [0, 0],
    [1, 5 * SECOND],
    [2, 5 * MINUTE],
    [3, 30 * MINUTE],
    [4, 2 * HOUR],
    [5, 5 * HOUR],
    [6, 10 * HOUR],
    [7, 10 * HOUR]
  ])("after %i failed attempts, waits %i ms", (attempts, wait) => {
    expect(millis(attempts)).toBe(wait)
  })

  it("after the eighth attempt there is none: the delivery has failed", () => {
    expect(Option.isNone(nextAttemptDelay(8))).toBe(true)
    expect(Option.isNone(nextAttemptDelay(9))).toBe(true)
    expect(MAX_ATTEMPTS).toBe(8)
  })

  it("refuses counts that are not counts", () => {
    expect(() => nextAttemptDelay(-1)).toThrow(RangeError)
    expect(() => nextAttemptDelay(1.5)).toThrow(RangeError)
    expect(() => nextAttemptDelay(Number.NaN)).toThrow(RangeError)
  })

  it("a delivery makes exactly 8 attempts, waiting 27 h 35 min 5 s in all", () => {
    const waits = allWaits()
    expect(waits).toHaveLength(MAX_ATTEMPTS)
    expect(waits.reduce((a, b) => a + b, 0)).toBe(TOTAL_WAIT)
  })

  prop("the waits never decrease", [fc.nat({ max: MAX_ATTEMPTS - 1 })], ([k]) => {
    const current = millis(k)
    const next = millis(k + 1)
    expect(current).toBeDefined()
    if (next !== undefined && current !== undefined) expect(next).toBeGreaterThanOrEqual(current)
  })

  prop("there is a next attempt exactly while fewer than 8 were made", [fc.nat({ max: 10_000 })], ([attempts]) => {
    expect(Option.isSome(nextAttemptDelay(attempts))).toBe(attempts < MAX_ATTEMPTS)
  })

  prop("only the first attempt is immediate; every retry waits at least 5 s", [fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 })], ([attempts]) => {
    expect(millis(attempts)).toBeGreaterThanOrEqual(5 * SECOND)
  })

  prop("the waits so far never exceed the total, and reach it at the end", [fc.nat({ max: 20 })], ([attempts]) => {
    let sum = 0
    for (let k = 0; k < attempts; k++) sum += millis(k) ?? 0
    expect(sum).toBeLessThanOrEqual(TOTAL_WAIT)
    if (attempts >= MAX_ATTEMPTS) expect(sum).toBe(TOTAL_WAIT)
  })

  prop("nextAttemptAt is the failed attempt's time plus the wait", [
    fc.nat({ max: MAX_ATTEMPTS + 2 }),
    fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  ], ([attempts, from]) => {
    const at = nextAttemptAt(attempts, from)
    const wait = millis(attempts)
    expect(Option.getOrUndefined(Option.map(at, (d) => d.getTime()))).toBe(wait === undefined ? undefined : from.getTime() + wait)
  })
})

describe("retrySchedule (the same waits, on the Effect Clock)", () => {
  it.effect("an attempt that always fails runs 8 times over 27 h 35 min 5 s", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const fiber = yield* Ref.update(attempts, (n) => n + 1).pipe(
        Effect.andThen(Effect.fail("answered 500")),
        Effect.retry(retrySchedule),
        Effect.result,
        Effect.forkChild
      )
      yield* TestClock.adjust(Duration.millis(TOTAL_WAIT - 1))
      expect(yield* Ref.get(attempts)).toBe(7)
      yield* TestClock.adjust(Duration.millis(1))
      const result = yield* Fiber.join(fiber)
      expect(result._tag).toBe("Failure")
      expect(yield* Ref.get(attempts)).toBe(MAX_ATTEMPTS)
    }))
})

describe("timeouts, success and disabling", () => {
  it("an attempt waits 15 s for an answer", () => {
    expect(Duration.toMillis(DELIVERY_TIMEOUT)).toBe(15 * SECOND)
  })

  it.each([[200, true], [201, true], [204, true], [299, true], [199, false], [300, false], [301, false], [302, false], [404, false], [500, false], [503, false]])(
    "status %i counts as success: %s",
    (status, success) => {
      expect(isSuccessStatus(status)).toBe(success)
    }
  )

  it("a subscription that is not failing is never disabled", () => {
    expect(shouldDisableSubscription(null, new Date("2030-01-01T00:00:00Z"))).toBe(false)
  })

  it("is disabled after exactly 5 days of failure, not a millisecond before", () => {
    const since = new Date("2026-03-01T12:00:00.000Z")
    expect(Duration.toMillis(DISABLE_AFTER)).toBe(5 * 24 * HOUR)
    expect(shouldDisableSubscription(since, new Date(since.getTime() + 5 * 24 * HOUR - 1))).toBe(false)
    expect(shouldDisableSubscription(since, new Date(since.getTime() + 5 * 24 * HOUR))).toBe(true)
  })

  prop("disabled exactly when failing for 5 days or more", [
    fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }),
    fc.integer({ min: -10 * 24 * HOUR, max: 20 * 24 * HOUR })
  ], ([since, elapsed]) => {
    expect(shouldDisableSubscription(since, new Date(since.getTime() + elapsed))).toBe(elapsed >= 5 * 24 * HOUR)
  })
})
