import {
  checkSubscriptionQuota,
  CurrentPrincipal,
  DeliveryId,
  type Filters,
  InvalidRequest,
  notFound,
  offsetOf,
  orRefuse,
  type PageRequest,
  paginationMeta,
  type Principal,
  type ValidationIssue,
  Webhook,
  type WebhookCreate,
  WebhookDelivery,
  WebhookId,
  type WebhookListParams,
  type WebhookUpdate
} from "@bizops/domain"
import { checkTargetUrl, encodeEvent, isSubscribable } from "@bizops/webhooks"
import { Context, Effect, Layer, Option, Result } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../Config.js"
import { FastSql } from "../Sql/Fast.js"
import type { RowOf } from "../Sql/Rows.js"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"

type WebhookRow = Omit<RowOf<typeof Webhook>, "hasSecret"> & { readonly secret: string | null }

/** The secret never leaves this function: a response says only whether there is one. */
const toWebhook = (row: WebhookRow) => new Webhook({ ...row, hasSecret: row.secret !== null }, { disableChecks: true })

interface DeliveryRow {
  readonly id: string
  readonly webhookId: string
  readonly eventId: string
  readonly eventType: string
  readonly status: "pending" | "succeeded" | "failed"
  readonly nextAttemptAt: Date | null
  readonly eventBody: string
  readonly attempts: ReadonlyArray<{
    readonly attemptedAt: string
    readonly statusCode: number | null
    readonly durationMs: number
    readonly responseBody: string | null
    readonly error: string | null
  }>
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toDelivery = (row: DeliveryRow) =>
  new WebhookDelivery({
    id: DeliveryId.make(row.id, { disableChecks: true }),
    webhookId: WebhookId.make(row.webhookId, { disableChecks: true }),
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts.map((a) => ({ ...a, attemptedAt: new Date(a.attemptedAt) })),
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt : null,
    event: JSON.parse(row.eventBody),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })

const DELIVERY_SELECT = `
  SELECT d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.next_attempt_at, e.body AS event_body,
    d.created_at, d.updated_at,
    coalesce((
      SELECT json_agg(json_build_object(
        'attemptedAt', to_char(a.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'statusCode', a.status_code, 'durationMs', a.duration_ms, 'responseBody', a.response_body, 'error', a.error
      ) ORDER BY a.attempted_at, a.id)
      FROM webhook_attempts a WHERE a.organization_id = d.organization_id AND a.delivery_id = d.id
    ), '[]'::json) AS attempts
  FROM webhook_deliveries d
  JOIN webhook_events e ON e.organization_id = d.organization_id AND e.id = d.event_id`

const invalid = (issues: ReadonlyArray<ValidationIssue>) =>
  new InvalidRequest({
    message: `${issues[0].path.join(".")}: ${issues[0].message}`,
    details: { code: "invalid_payload", issues }
  })

const makeWebhooksRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const config = yield* AppConfig
  const hooks = yield* makeResource({ table: "webhooks", what: "webhook", toResource: toWebhook })

  /** Event names must be in the catalog (or the one wildcard); URLs must pass the SSRF rules. */
  const validate = (input: { readonly url?: string | undefined; readonly events?: ReadonlyArray<string> | undefined }) => {
    const issues: Array<ValidationIssue> = []
    if (input.url !== undefined) {
      const checked = checkTargetUrl(input.url, { allowInsecure: config.webhooksAllowInsecure })
      if (Result.isFailure(checked)) issues.push({ path: ["url"], message: checked.failure })
    }
    if (input.events !== undefined) {
      const wildcard = input.events.includes("*")
      if (wildcard && input.events.length > 1) issues.push({ path: ["events"], message: "\"*\" stands alone: it means every event" })
      input.events.forEach((name, i) => {
        if (name !== "*" && !isSubscribable(name)) {
          issues.push({ path: ["events", i], message: `is not an event name (see GET /api/v1/webhook-events): ${name}` })
        }
      })
    }
    return issues.length > 0 ? Effect.fail(invalid(issues)) : Effect.void
  }

  const list = (filters: Filters<typeof WebhookListParams>, page: PageRequest) => hooks.list(byFilters(filters), page)

  /**
   * Creates a subscription within the organization's quota: the count and the insert run under a lock
   * of the organization's subscriptions, so concurrent creates cannot pass it together.
   */
  const create = (input: WebhookCreate) =>
    hooks.create((_, principal) =>
      Effect.gen(function*() {
        yield* validate(input)
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhooks:${principal.organizationId}`}, 0))`
        const counted = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM webhooks
          WHERE organization_id = ${principal.organizationId}`
        yield* orRefuse(checkSubscriptionQuota(counted[0]?.n ?? 0))
        return {
          url: input.url,
          events: [...input.events],
          description: input.description ?? null,
          enabled: input.enabled ?? true,
          secret: input.secret ?? null
        }
      })
    )

  const update = (id: WebhookId, input: WebhookUpdate) =>
    hooks.update(id, () =>
      Effect.gen(function*() {
        yield* validate(input)
        const { events, ...fields } = input
        return {
          ...fields,
          ...(events === undefined ? {} : { events: [...events] }),
          // Turning a subscription on again starts its failure clock anew.
          ...(input.enabled === true ? { failingSince: null, disabledReason: null } : {})
        }
      })
    )

  const delivery = (principal: Principal, webhookId: string, deliveryId: string) =>
    Effect.map(
      fast.rows<DeliveryRow>(`${DELIVERY_SELECT} WHERE d.organization_id = $1 AND d.webhook_id = $2 AND d.id = $3`, [
        principal.organizationId,
        webhookId,
        deliveryId
      ]),
      (rows) => Option.map(Option.fromNullishOr(rows[0]), toDelivery)
    )

  const deliveries = (webhookId: WebhookId, page: PageRequest) =>
    Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      yield* hooks.get(webhookId)
      const rows = yield* fast.rows<DeliveryRow & { readonly totalCount: number }>(
        `SELECT x.*, count(*) OVER () AS total_count FROM (${DELIVERY_SELECT}
           WHERE d.organization_id = $1 AND d.webhook_id = $2) x
         ORDER BY x.created_at DESC, x.id DESC LIMIT $3 OFFSET $4`,
        [principal.organizationId, webhookId, page.pageSize, offsetOf(page)]
      )
      const total = rows[0]?.totalCount ?? (yield* fast.rows<{ readonly n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1 AND webhook_id = $2",
        [principal.organizationId, webhookId]
      ))[0]?.n ?? 0
      return { data: rows.map(toDelivery), pagination: paginationMeta(page, total) }
    }).pipe(Effect.catchTag("SqlError", Effect.die))

  const redeliver = (webhookId: WebhookId, deliveryId: DeliveryId) =>
    Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      const now = yield* hooks.now
      const rows = yield* fast.rows<{ readonly id: string }>(
        `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, next_attempt_at = $4, updated_at = $4
         WHERE organization_id = $1 AND webhook_id = $2 AND id = $3 RETURNING id`,
        [principal.organizationId, webhookId, deliveryId, now]
      )
      if (rows.length === 0) return yield* Effect.fail(notFound("delivery"))
      return yield* Effect.flatMap(delivery(principal, webhookId, deliveryId), Option.match({
        onNone: () => Effect.fail(notFound("delivery")),
        onSome: Effect.succeed
      }))
    }).pipe(Effect.catchTag("SqlError", Effect.die))

  /** Queues a `ping` event for this subscription alone, whatever events it names. */
  const test = (webhookId: WebhookId) =>
    sql.withTransaction(Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      const webhook = yield* hooks.get(webhookId)
      const now = yield* hooks.now
      const eventId = randomUUID()
      const deliveryId = randomUUID()
      const body = encodeEvent({ id: eventId, type: "ping", createdAt: now, organizationId: principal.organizationId, object: webhook })
      yield* fast.rows(
        `WITH e AS (INSERT INTO webhook_events (id, organization_id, type, body, created_at) VALUES ($1, $2, 'ping', $3, $4) RETURNING id)
         INSERT INTO webhook_deliveries (id, organization_id, webhook_id, event_id, status, next_attempt_at, created_at, updated_at)
         SELECT $5, $2, $6, e.id, 'pending', $4, $4, $4 FROM e`,
        [eventId, principal.organizationId, body, now, deliveryId, webhookId]
      )
      return yield* Effect.flatMap(delivery(principal, webhookId, deliveryId), Option.match({
        onNone: () => Effect.fail(notFound("delivery")),
        onSome: Effect.succeed
      }))
    })).pipe(Effect.catchTag("SqlError", Effect.die))

  return { list, get: hooks.get, create, update, remove: hooks.remove, deliveries, redeliver, test } as const
})

/** Webhook subscriptions and their deliveries, always scoped by the caller's organization. */
export class WebhooksRepo extends Context.Service<WebhooksRepo, Effect.Success<typeof makeWebhooksRepo>>()("@bizops/server/WebhooksRepo") {
  static readonly layer = Layer.effect(WebhooksRepo, makeWebhooksRepo)
}
