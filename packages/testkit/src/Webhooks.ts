import { Effect, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { created } from "./Fixtures.js"

/** The signing secret of the tests' subscriptions. */
export const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

/**
 * The body of a delivery, as the contract writes it: the envelope and `data` with exactly these keys
 * (a key the contract does not name fails the decoding); the resource and its companions as sent.
 */
export const WebhookEvent = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  createdAt: Schema.String,
  organizationId: Schema.String,
  data: Schema.Struct({
    object: Schema.Any,
    previousAttributes: Schema.optionalKey(Schema.Any),
    refund: Schema.optionalKey(Schema.Any),
    previousDates: Schema.optionalKey(Schema.Any)
  })
})
export type WebhookEvent = typeof WebhookEvent.Type

const decodeEvent = Schema.decodeUnknownSync(WebhookEvent, { onExcessProperty: "error" })

/** What a receiver got: the headers and the body exactly as sent. */
export interface Delivery {
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly body: string
}

/**
 * Verifies a delivery with the standardwebhooks library (not our code), signed with `secret`, and returns
 * its payload; throws when the signature or the timestamp does not verify.
 */
export const verifiedWith = (secret: string) => (received: Delivery): WebhookEvent => {
  const headers: Record<string, string> = {}
  for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
    const value = received.headers[name]
    if (typeof value === "string") headers[name] = value
  }
  return decodeEvent(new Webhook(secret).verify(received.body, headers))
}

/** `verifiedWith(WEBHOOK_SECRET)`: one argument, so that it can be given to `map`. */
export const verified = verifiedWith(WEBHOOK_SECRET)

/** Subscribes `url` to `events` (all by default), signed with `secret` (none when undefined); expects 201. */
export const subscribe = (key: string, url: string, events: ReadonlyArray<string> = ["*"], secret: string | undefined = WEBHOOK_SECRET) =>
  Effect.map(
    created("/api/v1/webhooks", key, { url, events, ...(secret === undefined ? {} : { secret }) }),
    (body): { readonly id: string } => body
  )

/** Waits in real time (Effect.sleep would wait on the TestClock of `it.effect`). */
export const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((done) => setTimeout(done, ms)))
