/**
 * The delivery schedule of the contract: the first attempt at once; after a failure (a non-2xx answer, no
 * answer within 15 s, or no connection) retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; after
 * the eighth failed attempt the delivery is failed. A subscription whose deliveries have failed without a
 * success for 5 days is disabled.
 *
 * Pure: the caller passes the times (read from the Effect Clock, so that tests move time with TestClock).
 */
import { Array as Arr, Duration, Option, Schedule } from "effect"

/** The waits before the retries: after attempt k fails (k = 1..7), wait `RETRY_DELAYS[k - 1]`. */
export const RETRY_DELAYS: Arr.NonEmptyReadonlyArray<Duration.Duration> = [
  Duration.seconds(5),
  Duration.minutes(5),
  Duration.minutes(30),
  Duration.hours(2),
  Duration.hours(5),
  Duration.hours(10),
  Duration.hours(10)
]

/** Attempts of one delivery, the first included: 8. */
export const MAX_ATTEMPTS = RETRY_DELAYS.length + 1

/** How long an attempt waits for an answer before it counts as failed. */
export const DELIVERY_TIMEOUT = Duration.seconds(15)

/** How long a subscription may fail without a success before it is disabled. */
export const DISABLE_AFTER = Duration.days(5)

/**
 * The wait before the next attempt, given how many attempts were made (all failed): 0 → zero (the first
 * attempt is immediate), k in 1..7 → `RETRY_DELAYS[k - 1]`, 8 or more → none (the delivery has failed).
 * Throws for a negative or fractional count (the caller's bug).
 */
export const nextAttemptDelay = (attemptsSoFar: number): Option.Option<Duration.Duration> => {
  if (!Number.isSafeInteger(attemptsSoFar) || attemptsSoFar < 0) {
    throw new RangeError(`nextAttemptDelay: attemptsSoFar is a count of attempts, not ${attemptsSoFar}`)
  }
  if (attemptsSoFar === 0) return Option.some(Duration.zero)
  return Arr.get(RETRY_DELAYS, attemptsSoFar - 1)
}

/**
 * When the next attempt is due: `from` (the failed attempt's time; the event's time before the first
 * attempt) plus `nextAttemptDelay(attemptsSoFar)`; none once the delivery has failed for good.
 */
export const nextAttemptAt = (attemptsSoFar: number, from: Date): Option.Option<Date> =>
  Option.map(nextAttemptDelay(attemptsSoFar), (delay) => new Date(from.getTime() + Duration.toMillis(delay)))

/** An answer that counts as delivered: any 2xx. Anything else (redirects included: they are not followed) is a failure. */
export const isSuccessStatus = (status: number): boolean => Number.isInteger(status) && status >= 200 && status <= 299

/**
 * True when a subscription has been failing since `failingSince` (the first failed attempt since its last
 * success; null while it is not failing) for 5 days or more at `now`.
 */
export const shouldDisableSubscription = (failingSince: Date | null, now: Date): boolean =>
  failingSince !== null && now.getTime() - failingSince.getTime() >= Duration.toMillis(DISABLE_AFTER)

/**
 * The same waits as an Effect `Schedule`, for a retry held in memory: `Effect.retry(attempt, retrySchedule)`
 * makes at most `MAX_ATTEMPTS` attempts. (The worker keeps its schedule in the database with
 * `nextAttemptAt`, so that a restart loses nothing.)
 */
export const retrySchedule: Schedule.Schedule<Duration.Duration> = RETRY_DELAYS.slice(1).reduce(
  (schedule, delay) => Schedule.concat(schedule, Schedule.duration(delay)),
  Schedule.duration(RETRY_DELAYS[0])
)
