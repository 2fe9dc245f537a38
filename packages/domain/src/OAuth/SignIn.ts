/**
 * The sign-in page's limit (contract): failed sign-ins are counted per email address and per client
 * address in windows of 15 minutes; at SIGN_IN_FAILURES_PER_EMAIL (or _PER_ADDRESS) failures the next
 * attempt is refused (429) without checking the password. The arithmetic is the rate limit's (`decide`):
 * this attempt would be the window's next failure.
 */
import { Result } from "effect"
import { decide } from "../Common/RateLimit.js"

export const SIGN_IN_FAILURES_PER_EMAIL = 5
export const SIGN_IN_FAILURES_PER_ADDRESS = 50
export const SIGN_IN_WINDOW_SECONDS = 15 * 60

/** A bucket's failures in its current window, and when that window ends (ms; 0: no window). */
export interface FailureWindow {
  readonly count: number
  readonly resetsAt: number
}

/**
 * Whether a sign-in attempt may go on, given the failures of its email and of its address at `now`
 * (ms). Refused: the message of the 429 page, in whole minutes until the later of the two windows ends.
 */
export const decideSignInLimit = (
  byEmail: FailureWindow,
  byAddress: FailureWindow,
  now: number
): Result.Result<void, string> => {
  const windowMs = SIGN_IN_WINDOW_SECONDS * 1000
  const next = (window: FailureWindow, limit: number) =>
    decide({ start: window.resetsAt - windowMs, count: window.count + 1 }, limit, now, windowMs)
  const email = next(byEmail, SIGN_IN_FAILURES_PER_EMAIL)
  const address = next(byAddress, SIGN_IN_FAILURES_PER_ADDRESS)
  if (email.allowed && address.allowed) return Result.void
  const minutes = Math.ceil(Math.max(email.resetInSeconds, address.resetInSeconds) / 60)
  return Result.fail(`Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`)
}
