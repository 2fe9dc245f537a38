/**
 * Rate limiting, as pure arithmetic. A credential may make `limit` requests in a window of one hour
 * that starts with its first request after the previous window ended (the contract). The server
 * keeps the window in PostgreSQL and counts with one statement that does what `countRequest` does.
 */

export const WINDOW_MS = 60 * 60 * 1000
export const DEFAULT_LIMIT = 1000

/** A credential's current window: when it started and how many requests it has counted. */
export interface RateWindow {
  readonly start: number
  readonly count: number
}

/** The window after one more request at `now`: a new window if the last one has ended. */
export const countRequest = (window: RateWindow | undefined, now: number, windowMs = WINDOW_MS): RateWindow =>
  window === undefined || window.start + windowMs <= now ? { start: now, count: 1 } : { start: window.start, count: window.count + 1 }

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  /** Requests left in this window, never negative. */
  readonly remaining: number
  /** When the window ends (ms since the epoch). */
  readonly resetAt: number
  /** Whole seconds until the window ends, at least 1. */
  readonly resetInSeconds: number
}

/** Whether the request that made `window` is allowed, and what the headers say. */
export const decide = (window: RateWindow, limit: number, now: number, windowMs = WINDOW_MS): RateDecision => {
  const resetAt = window.start + windowMs
  return {
    allowed: window.count <= limit,
    limit,
    remaining: Math.max(0, limit - window.count),
    resetAt,
    resetInSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000))
  }
}

/** The rate-limit headers of a response (the contract's, and the IETF draft's beside them). */
export const rateLimitHeaders = (decision: RateDecision, windowMs = WINDOW_MS): Record<string, string> => ({
  "x-ratelimit-limit": String(decision.limit),
  "x-ratelimit-remaining": String(decision.remaining),
  "x-ratelimit-reset": String(Math.ceil(decision.resetAt / 1000)),
  "ratelimit-policy": `"hourly";q=${decision.limit};w=${Math.round(windowMs / 1000)}`,
  "ratelimit": `"hourly";r=${decision.remaining};t=${decision.resetInSeconds}`,
  ...(decision.allowed ? {} : { "retry-after": String(decision.resetInSeconds) })
})

/**
 * A sliding count of failures per client address (for 401s): at most `limit` in any `windowMs`.
 * Pure: the caller keeps the timestamps.
 */
export const recentFailures = (timestamps: ReadonlyArray<number>, now: number, windowMs: number): ReadonlyArray<number> =>
  timestamps.filter((t) => t > now - windowMs)
