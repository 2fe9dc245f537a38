import type { ContractPreviousDates } from "@bizops/domain"
import { encodeEvent, type EventName, previousAttributes, type Refund } from "@bizops/webhooks"
import { Clock, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { FastSql } from "../Sql/Fast.js"

/** The resource names `R` whose catalog has `R_<suffix>`. */
type ResourceOf<Name, Suffix extends string> = Name extends `${infer R}_${Suffix}` ? R : never

/**
 * A resource with all three of `_created`, `_updated` and `_deleted` in the event catalog (`client`,
 * `event_day`): the name a repository gives the outbox, so that a typo does not compile.
 */
export type ResourceEventName = ResourceOf<EventName, "created"> & ResourceOf<EventName, "updated"> & ResourceOf<EventName, "deleted">

/** Whose event it is: a caller's principal, or the organization an operator command works for. */
export interface Owner {
  readonly organizationId: string
}

/** An event to record: its type, the object, and what some events carry besides (see `encodeEvent`). */
export interface PendingEvent {
  readonly type: EventName
  readonly object: object
  readonly previousAttributes?: object | undefined
  readonly refund?: Refund | undefined
  readonly previousDates?: ContractPreviousDates | undefined
}

const makeOutbox = Effect.gen(function*() {
  const fast = yield* FastSql

  /** An event's id and body, as it is stored, signed and sent. */
  const encoded = (principal: Owner, event: PendingEvent, now: Date) => {
    const id = randomUUID()
    const body = encodeEvent({
      id,
      type: event.type,
      createdAt: now,
      organizationId: principal.organizationId,
      object: event.object,
      ...(event.previousAttributes === undefined ? {} : { previousAttributes: event.previousAttributes }),
      ...(event.refund === undefined ? {} : { refund: event.refund }),
      ...(event.previousDates === undefined ? {} : { previousDates: event.previousDates })
    })
    return { id, type: event.type, body }
  }

  const record = (
    principal: Owner,
    type: EventName,
    object: object,
    extra?: { readonly previousAttributes?: object; readonly refund?: Refund; readonly previousDates?: ContractPreviousDates }
  ) =>
    Effect.gen(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      const { id, body } = encoded(principal, { type, object, ...extra }, now)
      yield* fast.rows(
        `WITH w AS (
           SELECT id FROM webhooks
           WHERE organization_id = $2 AND enabled AND ($3 = ANY (events) OR '*' = ANY (events))
         ), e AS (
           INSERT INTO webhook_events (id, organization_id, type, body, created_at)
           SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM w)
           RETURNING id
         )
         INSERT INTO webhook_deliveries (id, organization_id, webhook_id, event_id, status, next_attempt_at, created_at, updated_at)
         SELECT gen_random_uuid(), $2, w.id, e.id, 'pending', $5, $5, $5 FROM w CROSS JOIN e`,
        [id, principal.organizationId, type, body, now]
      )
    })

  /**
   * Many events of one organization in one statement (an import's): each with its pending deliveries, as
   * `record` writes one. Nothing is written (nor encoded) when the organization has no enabled subscription.
   */
  const recordMany = (principal: Owner, events: ReadonlyArray<PendingEvent>) =>
    Effect.gen(function*() {
      if (events.length === 0) return
      const [subscribed] = yield* fast.rows<{ readonly any: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM webhooks WHERE organization_id = $1 AND enabled) AS any`,
        [principal.organizationId]
      )
      if (subscribed?.any !== true) return
      const now = new Date(yield* Clock.currentTimeMillis)
      yield* fast.rows(
        `WITH w AS (
           SELECT id, events FROM webhooks WHERE organization_id = $1 AND enabled
         ), e AS (
           INSERT INTO webhook_events (id, organization_id, type, body, created_at)
           SELECT i.id, $1, i.type, i.body, $2
           FROM jsonb_to_recordset($3::jsonb) AS i(id uuid, type text, body text, n bigint)
           WHERE EXISTS (SELECT 1 FROM w WHERE i.type = ANY (w.events) OR '*' = ANY (w.events))
           ORDER BY i.n
           RETURNING id, type
         )
         INSERT INTO webhook_deliveries (id, organization_id, webhook_id, event_id, status, next_attempt_at, created_at, updated_at)
         SELECT gen_random_uuid(), $1, w.id, e.id, 'pending', $2, $2, $2 FROM e JOIN w ON e.type = ANY (w.events) OR '*' = ANY (w.events)`,
        [principal.organizationId, now, JSON.stringify(events.map((event, n) => ({ n, ...encoded(principal, event, now) })))]
      )
    })

  /** `<resource>_created`, `_updated` (with previousAttributes) and `_deleted`, for a resource's repository. */
  const created = (principal: Owner, resource: ResourceOf<EventName, "created">, object: object) =>
    record(principal, `${resource}_created`, object)
  const updated = (principal: Owner, resource: ResourceOf<EventName, "updated">, before: object, after: object) =>
    record(principal, `${resource}_updated`, after, { previousAttributes: previousAttributes(before, after) })
  const deleted = (principal: Owner, resource: ResourceOf<EventName, "deleted">, object: object) =>
    record(principal, `${resource}_deleted`, object)

  return { record, recordMany, created, updated, deleted } as const
})

/**
 * Recording events: the outbox. `record` writes the event and one pending delivery per matching,
 * enabled subscription, in one statement, on the caller's transaction (call it inside the
 * sql.withTransaction that makes the change, so the change and its events commit together or not at
 * all). Nothing is written when no subscription wants the event.
 */
export class Outbox extends Context.Service<Outbox, Effect.Success<typeof makeOutbox>>()("@bizops/server/Outbox") {
  static readonly layer = Layer.effect(Outbox, makeOutbox)
}
