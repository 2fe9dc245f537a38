/**
 * The body of a delivery: the exact JSON text that is signed and sent, and the `previousAttributes`
 * of an `_updated` event.
 */
import type { ContractPreviousDates } from "@bizops/domain"
import { findEvent, type Refund } from "./Catalog.js"

/** What the server records for an event; `encodeEvent` turns it into the body. */
export interface EventInput {
  /** The event's id (a UUID), also the `webhook-id` header. */
  readonly id: string
  /** The event name (`client_created`, `invoice_refunded`, `ping`, ...): a name of the catalog. */
  readonly type: string
  readonly createdAt: Date
  readonly organizationId: string
  /** The resource as the API returns it (a domain value such as a `Client`, or its JSON form). */
  readonly object: object
  /** `_updated` events only, and required there: see `previousAttributes(before, after)`. */
  readonly previousAttributes?: object | undefined
  /** `invoice_refunded` only, and required there. */
  readonly refund?: Refund | undefined
  /** `contract_amended` only, and required there: the contract's dates before the amendment. */
  readonly previousDates?: ContractPreviousDates | undefined
}

/** Keys that an event's object leaves out when their value is null, by resource (contract: a payout without `paymentCount`). */
export const OMITTED_WHEN_NULL: Readonly<Record<string, ReadonlyArray<string>>> = {
  payout: ["paymentCount"]
}

const EVENT_SUFFIX = /_(created|updated|deleted)$/

/** The resource an event carries: the catalog's `resource`, else the name without `_created`/`_updated`/`_deleted`. */
export const resourceOfEvent = (type: string): string | undefined =>
  findEvent(type)?.resource ?? (EVENT_SUFFIX.test(type) ? type.replace(EVENT_SUFFIX, "") : undefined)

/**
 * The resource as the event sends it: the object unchanged, except the keys the contract leaves out when
 * null (a payout's `paymentCount`).
 */
export const eventObject = (resource: string | undefined, object: object): object => {
  const omitted = resource === undefined ? undefined : OMITTED_WHEN_NULL[resource]
  if (omitted === undefined) return object
  const entries: Array<[string, unknown]> = Object.entries(object)
  return entries.some(([key, value]) => value === null && omitted.includes(key))
    ? Object.fromEntries(entries.filter(([key, value]) => !(value === null && omitted.includes(key))))
    : object
}

/**
 * The body of a delivery, exactly as sent and signed:
 * `{"id","type","createdAt","organizationId","data":{"object",["previousAttributes"],["refund"],["previousDates"]}}`.
 *
 * Throws (a defect: the caller's bug) for a type that is not in the catalog, for `previousAttributes` missing
 * on an `_updated` event or given on another, for `refund` missing on `invoice_refunded` or given on another, and
 * for `previousDates` missing on `contract_amended` or given on another.
 */
export const encodeEvent = (event: EventInput): string => {
  const definition = findEvent(event.type)
  if (definition === undefined) throw new Error(`encodeEvent: unknown event type ${JSON.stringify(event.type)}`)
  const isUpdated = event.type.endsWith("_updated")
  if (isUpdated !== (event.previousAttributes !== undefined)) {
    throw new Error(
      isUpdated
        ? `encodeEvent: ${event.type} needs previousAttributes`
        : `encodeEvent: previousAttributes belongs to _updated events only, not ${event.type}`
    )
  }
  const isRefund = event.type === "invoice_refunded"
  if (isRefund !== (event.refund !== undefined)) {
    throw new Error(isRefund ? "encodeEvent: invoice_refunded needs refund" : `encodeEvent: refund belongs to invoice_refunded only, not ${event.type}`)
  }
  const isAmended = event.type === "contract_amended"
  if (isAmended !== (event.previousDates !== undefined)) {
    throw new Error(
      isAmended ? "encodeEvent: contract_amended needs previousDates" : `encodeEvent: previousDates belongs to contract_amended only, not ${event.type}`
    )
  }
  const data = {
    object: eventObject(definition.resource, event.object),
    // The old values follow the object's rule too: a payout's previous paymentCount is left out when it was null.
    ...(event.previousAttributes === undefined ? {} : { previousAttributes: eventObject(definition.resource, event.previousAttributes) }),
    ...(event.refund === undefined
      ? {}
      : {
        refund: {
          paymentId: event.refund.paymentId,
          amount: event.refund.amount,
          method: event.refund.method,
          reason: event.refund.reason
        }
      }),
    ...(event.previousDates === undefined
      ? {}
      : { previousDates: { effectiveDate: event.previousDates.effectiveDate, expirationDate: event.previousDates.expirationDate } })
  }
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    organizationId: event.organizationId,
    data
  })
}

const isPlainRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)

/**
 * Equality as the JSON text sees it: dates by instant, arrays element by element, objects key by key (a key
 * whose value is undefined counts as absent), whatever their prototypes.
 */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b)
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && (a.getTime() === b.getTime() || (Number.isNaN(a.getTime()) && Number.isNaN(b.getTime())))
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  }
  if (isPlainRecord(a) && isPlainRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    for (const key of keys) {
      if (!jsonEqual(a[key], b[key])) return false
    }
    return true
  }
  return false
}

/**
 * `data.previousAttributes` of an `_updated` event: for each field of `before` whose value differs from
 * `after` (deep comparison: a nested object such as `taxSettings` counts as changed only if a value inside it
 * changed), the old value. Unchanged fields are left out; `{}` when nothing changed. Timestamps such as
 * `updatedAt` are fields like any other.
 */
export const previousAttributes = <A extends object>(before: A, after: A): Partial<A> => {
  const result: Partial<A> = {}
  for (const key of Object.keys(before) as Array<keyof A & string>) {
    const old = before[key]
    if (old !== undefined && !jsonEqual(old, after[key])) result[key] = old
  }
  return result
}
