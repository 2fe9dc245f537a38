/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the headers `webhook-id`,
 * `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with
 * the subscription's secret (`whsec_` + base64 of 24 to 64 random bytes). The `standardwebhooks` npm
 * package verifies what this module produces.
 *
 * Nothing here reads the clock: the caller passes the timestamp. Only `generateSecret` uses randomness.
 */
import { Redacted } from "effect"
import { createHmac, randomBytes } from "node:crypto"

export const SECRET_PREFIX = "whsec_"
export const SECRET_MIN_BYTES = 24
export const SECRET_MAX_BYTES = 64
/** The size of the secrets `generateSecret` makes. */
export const GENERATED_SECRET_BYTES = 32
/** The message for a secret that `isValidSecret` refuses (it never repeats the value). */
export const INVALID_SECRET_MESSAGE = `must be ${SECRET_PREFIX} followed by base64 of ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES} random bytes`
export const USER_AGENT = "bizops-webhooks/1"

/** A secret, plain or wrapped in `Redacted` (so that it cannot reach a log by accident). */
export type Secret = string | Redacted.Redacted<string>

/** Canonical, padded base64 (the alphabet with `+` and `/`). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const decodeSecret = (secret: string): Buffer | undefined => {
  if (!secret.startsWith(SECRET_PREFIX)) return undefined
  const encoded = secret.slice(SECRET_PREFIX.length)
  if (!BASE64.test(encoded)) return undefined
  const bytes = Buffer.from(encoded, "base64")
  // Refuses encodings whose unused padding bits are set: each secret has exactly one spelling.
  return bytes.toString("base64") === encoded ? bytes : undefined
}

/** True for `whsec_` followed by canonical base64 of 24 to 64 bytes. */
export const isValidSecret = (secret: string): boolean => {
  const bytes = decodeSecret(secret)
  return bytes !== undefined && bytes.length >= SECRET_MIN_BYTES && bytes.length <= SECRET_MAX_BYTES
}

/** The secret spelled from given random bytes (24 to 64 of them). */
export const secretFromBytes = (bytes: Uint8Array): string => {
  if (bytes.length < SECRET_MIN_BYTES || bytes.length > SECRET_MAX_BYTES) {
    throw new RangeError(`secretFromBytes: a secret has ${SECRET_MIN_BYTES} to ${SECRET_MAX_BYTES} bytes, not ${bytes.length}`)
  }
  return SECRET_PREFIX + Buffer.from(bytes).toString("base64")
}

/** A new secret: `whsec_` + base64 of 32 bytes from the operating system's random source. */
export const generateSecret = (): string => secretFromBytes(randomBytes(GENERATED_SECRET_BYTES))

const keyOf = (secret: Secret): Buffer => {
  const value = Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
  const bytes = isValidSecret(value) ? decodeSecret(value) : undefined
  // The message never includes the secret.
  if (bytes === undefined) throw new Error(`sign: the webhook secret is not valid (it ${INVALID_SECRET_MESSAGE})`)
  return bytes
}

const checkTimestamp = (timestampSeconds: number): void => {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`sign: the timestamp is whole seconds since the Unix epoch, not ${timestampSeconds}`)
  }
}

/**
 * The `webhook-signature` value: `v1,` + base64 of HMAC-SHA256 over `${msgId}.${timestampSeconds}.${body}`,
 * keyed with the base64-decoded part of the secret. Throws for an invalid secret or a timestamp that is not
 * whole seconds (the caller's bug).
 */
export const sign = (secret: Secret, msgId: string, timestampSeconds: number, body: string): string => {
  checkTimestamp(timestampSeconds)
  const mac = createHmac("sha256", keyOf(secret)).update(`${msgId}.${timestampSeconds}.${body}`, "utf8").digest("base64")
  return `v1,${mac}`
}

/** Everything needed to build the headers of one attempt. */
export interface DeliveryHeadersInput {
  /** The event id: the same on every attempt, so that receivers can drop duplicates. */
  readonly id: string
  /** The attempt's time, whole seconds since the Unix epoch (from the Effect Clock). */
  readonly timestampSeconds: number
  /** The exact body sent (`encodeEvent`'s result). */
  readonly body: string
  /** The subscription's secret; none (null or undefined): the delivery goes unsigned. */
  readonly secret?: Secret | null | undefined
}

/** Plain string headers (assignable to `Record<string, string>`, as `fetch` and `HttpClientRequest.setHeaders` take them). */
export type DeliveryHeaders = {
  readonly "webhook-id": string
  readonly "webhook-timestamp": string
  readonly "webhook-signature"?: string
  readonly "content-type": "application/json"
  readonly "user-agent": string
}

/** The headers of one delivery attempt; `webhook-signature` only when the subscription has a secret. */
export const deliveryHeaders = (input: DeliveryHeadersInput): DeliveryHeaders => {
  checkTimestamp(input.timestampSeconds)
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestampSeconds),
    ...(input.secret == null ? {} : { "webhook-signature": sign(input.secret, input.id, input.timestampSeconds, input.body) }),
    "content-type": "application/json",
    "user-agent": USER_AGENT
  }
}
