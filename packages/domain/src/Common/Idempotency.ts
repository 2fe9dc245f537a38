/**
 * Idempotency keys, as pure rules: what a key may be, what makes two requests "the same", and
 * which answers are kept for replay (the contract's Idempotency section).
 */

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

export const isValidIdempotencyKey = (key: string): boolean =>
  key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && /^[\x20-\x7e]+$/.test(key)

/** JSON with object keys sorted and no white space: equal values give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
}

/**
 * What identifies a request for its idempotency key: method, path and the canonical body. The server
 * hashes it. A body that is not JSON is taken as its text.
 */
export const fingerprintInput = (method: string, path: string, body: string): string => {
  let canonical: string
  try {
    canonical = body.trim() === "" ? "" : canonicalJson(JSON.parse(body))
  } catch {
    canonical = `raw:${body}`
  }
  return `${method.toUpperCase()} ${path}\n${canonical}`
}

/**
 * Whether an answer is stored for replay: every 2xx and 4xx of the handler, but not 5xx, 401, 403,
 * 429, nor request-validation failures, which a retry with the same key may redo.
 */
export const isReplayable = (status: number, validationFailure: boolean): boolean =>
  !validationFailure && status >= 200 && status < 500 && status !== 401 && status !== 403 && status !== 429
