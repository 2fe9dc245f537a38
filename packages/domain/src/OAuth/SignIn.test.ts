import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { decideSignInLimit, SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_FAILURES_PER_EMAIL, SIGN_IN_WINDOW_SECONDS } from "./SignIn.js"

const NOW = 1_780_000_000_000
/** A bucket: its failures, and when its window ends (0: no window, as the repository answers). */
const bucket = (limit: number) =>
  fc.record({
    count: fc.oneof(fc.constantFrom(0, limit - 1, limit, limit + 1), fc.nat(limit * 2)),
    resetsAt: fc.oneof(fc.constant(0), fc.integer({ min: NOW - 1_000, max: NOW + SIGN_IN_WINDOW_SECONDS * 1000 }))
  })

describe("decideSignInLimit", () => {
  prop(
    "refused once either bucket has reached its limit, in whole minutes (at least 1) to the later window's end",
    [bucket(SIGN_IN_FAILURES_PER_EMAIL), bucket(SIGN_IN_FAILURES_PER_ADDRESS)],
    ([byEmail, byAddress]) => {
      const result = decideSignInLimit(byEmail, byAddress, NOW)
      if (byEmail.count < SIGN_IN_FAILURES_PER_EMAIL && byAddress.count < SIGN_IN_FAILURES_PER_ADDRESS) {
        expect(result).toEqual(Result.void)
        return
      }
      const minutes = Math.max(1, Math.ceil((Math.max(byEmail.resetsAt, byAddress.resetsAt) - NOW) / 60_000))
      expect(result).toEqual(Result.fail(`Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`))
    }
  )

  it("the contract's numbers", () => {
    expect([SIGN_IN_FAILURES_PER_EMAIL, SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_WINDOW_SECONDS]).toEqual([5, 50, 900])
    const full = { count: 5, resetsAt: NOW + 14 * 60_000 + 1 }
    expect(decideSignInLimit(full, { count: 0, resetsAt: 0 }, NOW)).toEqual(Result.fail("Too many failed attempts. Try again in 15 minutes."))
    expect(decideSignInLimit({ count: 4, resetsAt: NOW }, { count: 50, resetsAt: NOW + 30_000 }, NOW)).toEqual(Result.fail("Too many failed attempts. Try again in 1 minute."))
  })
})
