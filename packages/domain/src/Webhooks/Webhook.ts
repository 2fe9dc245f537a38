import { Result, Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { Refusal } from "../Common/Refusal.js"
import { DateTime, generatedAs, MaxString, Text, Uuid } from "../Common/Values.js"

export const WebhookId = Uuid.pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
export const DeliveryId = Uuid.pipe(Schema.brand("WebhookDeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

/** A target URL: absolute, at most 2048 characters (https is checked by the server, with the SSRF rules). */
export const WebhookUrl = Text.check(
  Schema.isMaxLength(2048, { message: "must be at most 2048 characters" }),
  Schema.makeFilter((s: string) => URL.canParse(s), {
    message: "must be an absolute URL",
    ...generatedAs(/^https:\/\/(example\.com\/hooks|hooks\.example\.org\/a\/b)$/)
  })
).annotate({ format: "uri" })

/** Event names (see GET /api/v1/webhook-events), or ["*"] for every event. */
export const WebhookEvents = Schema.Array(Text.check(Schema.isMaxLength(100))).check(
  Schema.isMinLength(1, { message: "must name at least one event" }),
  Schema.isMaxLength(100, { message: "must name at most 100 events" })
)

/** A signing secret: `whsec_` and base64 of 24 to 64 random bytes (Standard Webhooks). Write-only. */
export const WebhookSecret = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(s)
    if (match === null) return false
    try {
      // Canonical base64 only (as the webhooks package's isValidSecret): it must read back the same.
      const bytes = atob(match[1])
      return btoa(bytes) === match[1] && bytes.length >= 24 && bytes.length <= 64
    } catch {
      return false
    }
  }, { message: "must be whsec_ followed by base64 of 24 to 64 random bytes" })
)

export class Webhook extends Schema.Class<Webhook>("Webhook")({
  id: WebhookId,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  hasSecret: Schema.Boolean,
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

export const WebhookCreate = Schema.Struct({
  url: WebhookUrl,
  events: WebhookEvents,
  description: Schema.optionalKey(Schema.NullOr(MaxString(500))),
  enabled: Schema.optionalKey(Schema.Boolean),
  secret: Schema.optionalKey(WebhookSecret)
}).annotate({ identifier: "WebhookCreate", examples: [{ url: "https://example.com/hooks/bizops", events: ["client_created", "invoice_updated"], description: "CRM sync" }] })
export type WebhookCreate = typeof WebhookCreate.Type

export const WebhookUpdate = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(WebhookEvents),
  description: Schema.optionalKey(Schema.NullOr(MaxString(500))),
  enabled: Schema.optionalKey(Schema.Boolean),
  /** A new secret, or null to stop signing. */
  secret: Schema.optionalKey(Schema.NullOr(WebhookSecret))
}).annotate({ identifier: "WebhookUpdate", examples: [{ enabled: false }] })
export type WebhookUpdate = typeof WebhookUpdate.Type

export const WebhookListParams = Schema.Struct({ ...ListParams })
export const WebhookList = ListOf(Webhook, "WebhookList")

export const DeliveryStatus = Schema.Literals(["pending", "succeeded", "failed"])

export const DeliveryAttempt = Schema.Struct({
  attemptedAt: DateTime,
  statusCode: Schema.NullOr(Schema.Int),
  durationMs: Schema.Int,
  responseBody: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String)
}).annotate({ identifier: "WebhookDeliveryAttempt" })

export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: DeliveryId,
  webhookId: WebhookId,
  eventId: Uuid,
  eventType: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Array(DeliveryAttempt),
  nextAttemptAt: Schema.NullOr(DateTime),
  /** The event as it was (and is again) sent: the body of every attempt. */
  event: Schema.Unknown,
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

export const DeliveryList = ListOf(WebhookDelivery, "WebhookDeliveryList")

export const WebhookEventType = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  payloadSchema: Schema.Unknown
}).annotate({ identifier: "WebhookEventType" })

export const WebhookEventTypeList = ListOf(WebhookEventType, "WebhookEventTypeList")

/** The most webhook subscriptions an organization holds, disabled ones included (the contract). */
export const MAX_SUBSCRIPTIONS_PER_ORGANIZATION = 100

/**
 * Whether an organization that holds `count` subscriptions may create another: a 409 conflict,
 * quota_exceeded, when it holds the maximum.
 */
export const checkSubscriptionQuota = (count: number): Result.Result<void, Refusal> =>
  count < MAX_SUBSCRIPTIONS_PER_ORGANIZATION
    ? Result.void
    : Result.fail(Refusal.conflict(
      `An organization holds at most ${MAX_SUBSCRIPTIONS_PER_ORGANIZATION} webhook subscriptions (disabled ones included); delete one to make room`,
      "quota_exceeded"
    ))

/**
 * The message of `checkSubscriptionQuota`'s refusal, or undefined.
 * @deprecated use `checkSubscriptionQuota` with `orRefuse` / `refusalError` (one mapping for every refusal).
 */
export const subscriptionQuotaRefusal = (count: number): string | undefined =>
  Result.match(checkSubscriptionQuota(count), { onSuccess: () => undefined, onFailure: (refusal) => refusal.message })
