/**
 * The event catalog: every event the service can send, with the JSON Schema of its body, in one place.
 * The server reads it to validate subscriptions and to answer `GET /api/v1/webhook-events`; the OpenAPI
 * document reads the same payload schemas.
 *
 * Adding a resource's events is one line in `subscribableEvents` below:
 * `...resourceEvents("time_entry", TimeEntry)`.
 */
import { Client, ClientDocument, Contact, Contract, ContractPreviousDates, EventDay, Invoice, Milestone, Payment, PayoutEventObject, Project, Sale, TimelineItem, Uuid, Webhook } from "@bizops/domain"
import { Array as Arr, JsonSchema, Result, Schema, SchemaTransformation, Struct } from "effect"

/** No services to decode or encode with. */
type NoServices = { readonly DecodingServices: never; readonly EncodingServices: never }

/**
 * A schema usable as a field of an event's body. `Schema.Struct.Fields` values are `Schema.Constraint`s
 * (services `unknown`), too loose for a struct that must decode without services.
 */
export type FieldSchema = Schema.Constraint & NoServices

/** The schema of an event's whole body: decodes and encodes without services. */
export type PayloadSchema = Schema.Codec<unknown, unknown>

/** One event of the catalog: its name, what it means, the resource it carries, its body's schema. */
export interface EventDefinition<Name extends string = string> {
  readonly name: Name
  readonly description: string
  /** The resource that `data.object` is (singular, underscores: `client`, `time_entry`), when there is one. */
  readonly resource?: string
  /** False only for `ping`, which is sent by `POST /webhooks/{id}/test` and cannot be subscribed to. */
  readonly subscribable: boolean
  /** The schema of the whole body (`{ id, type, createdAt, organizationId, data }`); JSON through `Schema.toCodecJson`. */
  readonly payload: PayloadSchema
}

/** The fields of a resource object. */
export type ResourceFields = { readonly [key: string]: FieldSchema }

/**
 * A schema of a resource object: a `Schema.Struct` or a `Schema.Class` (`fields`), or a struct with an index
 * signature, `Schema.StructWithRest` (`schema.fields` and the `records`: the permissive placeholders).
 */
export type ResourceSchema =
  | FieldSchema & { readonly fields: ResourceFields }
  | FieldSchema & {
    readonly schema: { readonly fields: ResourceFields }
    readonly records: ReadonlyArray<Schema.StructWithRest.Records[number] & NoServices>
  }

/** The id of an event: a UUID, also sent as the `webhook-id` header. */
export const EventId = Uuid.annotate({ description: "The event's id (a UUID), also sent as the webhook-id header; the same on every retry" })

/**
 * The `createdAt` of an event: a Date in code, an ISO 8601 UTC string in JSON. The JSON form is given
 * explicitly, because an annotation on `Schema.Date` itself does not reach its JSON Schema.
 */
const EventTimestamp = Schema.Date.annotate({
  toCodecJson: () =>
    Schema.link<Date>()(
      Schema.String.annotate({ format: "date-time", description: "When the event happened (ISO 8601 UTC, with milliseconds)" }),
      SchemaTransformation.dateFromString
    )
})

const pascal = (name: string): string =>
  name.split("_").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("")

const humanize = (resource: string): string => resource.replaceAll("_", " ")

/**
 * The object of an event whose resource has no schema in `@bizops/domain` yet: an object with an id, any other
 * fields (their values are any JSON value; in tests Effect generates `Unknown` as JSON values, so samples
 * survive a JSON round trip).
 */
export const permissiveObject = (identifier: string, description: string) =>
  Schema.StructWithRest(Schema.Struct({ id: Uuid }), [Schema.Record(Schema.String, Schema.Unknown)]).annotate({ identifier, description })

const notYetDescribed = (what: string, path: string) =>
  `${what} as the API returns it${path === "" ? "" : ` (${path})`}. Its schema is not part of the catalog yet, so it is described here as an object with an id; the issue that adds the resource replaces this with the full schema.`

/**
 * `data.previousAttributes` of an `_updated` event: the old values of the fields that changed. Every field of
 * the object, each optional (exact: absent, never undefined); a struct with an index signature keeps it.
 */
const previousAttributesOf = (object: ResourceSchema, resource: string) => {
  const annotations = {
    identifier: `${pascal(resource)}PreviousAttributes`,
    description: `The old values of the ${humanize(resource)}'s fields that changed (only those fields)`
  }
  return "fields" in object
    ? Schema.Struct(Struct.map(object.fields, Schema.optionalKey)).annotate(annotations)
    : Schema.StructWithRest(Schema.Struct(Struct.map(object.schema.fields, Schema.optionalKey)), object.records).annotate(annotations)
}

/** The fields of an event's `data` (schemas without requirements). */
export type DataFields = { readonly [key: string]: FieldSchema }

/** The body of an event: `{ id, type, createdAt, organizationId, data }`. */
const payloadOf = <Name extends string>(name: Name, description: string, data: DataFields) =>
  Schema.Struct({
    id: EventId,
    type: Schema.Literal(name),
    createdAt: EventTimestamp,
    organizationId: Uuid.annotate({ description: "The organization the event belongs to" }),
    data: Schema.Struct(data)
  }).annotate({ identifier: `${pascal(name)}Event`, title: name, description })

const define = <Name extends string>(
  name: Name,
  description: string,
  resource: string | undefined,
  data: DataFields
): EventDefinition<Name> => ({
  name,
  description,
  ...(resource === undefined ? {} : { resource }),
  subscribable: true,
  payload: payloadOf(name, description, data)
})

/** `<resource>_created`: `data.object` is the new resource. */
export const createdEvent = <R extends string>(resource: R, object: ResourceSchema): EventDefinition<`${R}_created`> =>
  define(`${resource}_created`, `A ${humanize(resource)} was created. data.object is the ${humanize(resource)}.`, resource, { object })

/** `<resource>_updated`: `data.object` is the resource after the change, `data.previousAttributes` the old values of the fields that changed. */
export const updatedEvent = <R extends string>(resource: R, object: ResourceSchema): EventDefinition<`${R}_updated`> =>
  define(
    `${resource}_updated`,
    `A ${humanize(resource)} was changed. data.object is the ${humanize(resource)} after the change; data.previousAttributes holds the old values of the fields that changed.`,
    resource,
    { object, previousAttributes: previousAttributesOf(object, resource) }
  )

/** `<resource>_deleted`: `data.object` is the resource as it was just before it was deleted. */
export const deletedEvent = <R extends string>(resource: R, object: ResourceSchema): EventDefinition<`${R}_deleted`> =>
  define(`${resource}_deleted`, `A ${humanize(resource)} was deleted. data.object is the ${humanize(resource)} as it was before.`, resource, { object })

/**
 * The three events of a resource: `<resource>_created`, `<resource>_updated`, `<resource>_deleted`.
 * `resource` is singular with underscores (`time_entry`); `object` is the schema of the resource as the API returns it.
 */
export const resourceEvents = <R extends string>(
  resource: R,
  object: ResourceSchema
): readonly [EventDefinition<`${R}_created`>, EventDefinition<`${R}_updated`>, EventDefinition<`${R}_deleted`>] => [
  createdEvent(resource, object),
  updatedEvent(resource, object),
  deletedEvent(resource, object)
]

/** An event other than create/update/delete: `data` holds `object` and whatever else the event carries. */
export const namedEvent = <Name extends string>(
  name: Name,
  description: string,
  options: { readonly resource?: string; readonly object: ResourceSchema; readonly data?: DataFields }
): EventDefinition<Name> => define(name, description, options.resource, { object: options.object, ...options.data })

/** `data.refund` of `invoice_refunded`. */
export const Refund = Schema.Struct({
  paymentId: Uuid.annotate({ description: "The refund's payment record (kind refund; its refundOfId names the payment refunded)" }),
  amount: Schema.Number.check(Schema.isFinite(), Schema.isGreaterThan(0)).annotate({ description: "The amount refunded, a positive number in the invoice's currency" }),
  method: Schema.String.annotate({ description: "How the money went back: a payment method (processor, check, bank_transfer, cash, wire, ...)" }),
  reason: Schema.NullOr(Schema.String).annotate({ description: "The refund's notes, or null" })
}).annotate({ identifier: "InvoiceRefund", description: "The refund that caused the event" })
export type Refund = typeof Refund.Type

const namedOnly = (what: string) =>
  notYetDescribed(what, "").replace(" as the API returns it", "")

/**
 * Every subscribable event. A later issue adds its resource here in one line
 * (`...resourceEvents("time_entry", TimeEntry)`) and, when a placeholder object gains its real schema,
 * replaces the placeholder.
 */
const subscribableEvents = [
  ...resourceEvents("client", Client),
  ...resourceEvents("contact", Contact),
  ...resourceEvents("project", Project),
  ...resourceEvents("invoice", Invoice),
  createdEvent("payment", Payment),
  updatedEvent("payment", Payment),
  ...resourceEvents("event_day", EventDay),
  ...resourceEvents("timeline_item", TimelineItem),
  namedEvent(
    "invoice_refunded",
    "A refund was recorded against an invoice (once per refund). data.object is the invoice after the refund; data.refund is the refund: paymentId, amount, method and reason (the refund's notes).",
    { resource: "invoice", object: Invoice, data: { refund: Refund } }
  ),
  namedEvent("client_reply", "A client replied to a message from the business. data.object is the reply.", {
    object: permissiveObject("ClientReplyEventObject", namedOnly("The reply"))
  }),
  namedEvent("client_revision_requested", "A client asked for changes to a document sent to them. data.object is the request.", {
    object: permissiveObject("ClientRevisionRequestEventObject", namedOnly("The revision request"))
  }),
  namedEvent("email_delivery_failed", "An email sent by the service could not be delivered. data.object is the email.", {
    object: permissiveObject("EmailDeliveryFailureEventObject", namedOnly("The email that failed"))
  }),
  namedEvent("follow_up_due", "A follow-up with a client or lead is due. data.object is the follow-up.", {
    object: permissiveObject("FollowUpEventObject", namedOnly("The follow-up"))
  }),
  namedEvent("payment_processing", "A payment entered the processing state. data.object is the payment.", {
    resource: "payment",
    object: Payment
  }),
  namedEvent("receipt_viewed", "A client opened a receipt. data.object is the receipt view.", {
    object: permissiveObject("ReceiptViewEventObject", namedOnly("The receipt view"))
  }),
  ...resourceEvents("contract", Contract),
  namedEvent(
    "contract_amended",
    "A contract's effectiveDate or expirationDate changed after it was sent. data.object is the contract after the amendment; data.previousDates its dates before.",
    { resource: "contract", object: Contract, data: { previousDates: ContractPreviousDates } }
  ),
  createdEvent("sale", Sale),
  updatedEvent("sale", Sale),
  namedEvent("sale_refunded", "A sale was refunded in full. data.object is the sale after the refund.", { resource: "sale", object: Sale }),
  namedEvent("sale_partially_refunded", "Part of a sale was refunded. data.object is the sale after the refund.", {
    resource: "sale",
    object: Sale
  }),
  namedEvent("sale_voided", "A sale was voided: its books are reversed and it is never revenue. data.object is the sale after the void.", {
    resource: "sale",
    object: Sale
  }),
  createdEvent("payout", PayoutEventObject),
  updatedEvent("payout", PayoutEventObject),
  namedEvent("payout_paid", "A payout reached the bank (imported as paid, or its status became paid). data.object is the payout; paymentCount is absent when unknown.", {
    resource: "payout",
    object: PayoutEventObject
  }),
  namedEvent("payout_failed", "A payout failed (imported as failed, or its status became failed). data.object is the payout, with failureCode and failureMessage.", {
    resource: "payout",
    object: PayoutEventObject
  }),
  ...resourceEvents("milestone", Milestone),
  // Client documents arrive through the operator import, which creates and changes them (never deletes).
  createdEvent("client_document", ClientDocument),
  updatedEvent("client_document", ClientDocument)
] as const

/** The test delivery (`POST /api/v1/webhooks/{id}/test`). Not subscribable: it goes to the one subscription tested. */
export const pingEvent: EventDefinition<"ping"> = {
  name: "ping",
  description: "A test delivery, sent on request to one subscription. data.object is the subscription as the API returns it.",
  resource: "webhook",
  subscribable: false,
  payload: payloadOf("ping", "A test delivery. data.object is the subscription as the API returns it.", { object: Webhook })
}

/** Every event name a subscription may name. */
export type EventName = (typeof subscribableEvents)[number]["name"]

/** Every event name, `ping` included. */
export type AnyEventName = EventName | "ping"

/** The whole catalog: the subscribable events, then `ping`. */
export const eventCatalog: ReadonlyArray<EventDefinition<AnyEventName>> = [...subscribableEvents, pingEvent]

/** The subscribable event names, in catalog order. */
export const eventNames: Arr.NonEmptyReadonlyArray<EventName> = Arr.map(subscribableEvents, (event) => event.name)

/** The schema of a subscribable event name (`ping` is not one). */
export const EventName = Schema.Literals(eventNames).annotate({
  identifier: "WebhookEventName",
  description: "An event a subscription can name (GET /api/v1/webhook-events lists them)"
})

const byName: ReadonlyMap<string, EventDefinition<AnyEventName>> = new Map(eventCatalog.map((event) => [event.name, event]))

/** The catalog entry of an event name (`ping` included), if there is one. */
export const findEvent = (name: string): EventDefinition<AnyEventName> | undefined => byName.get(name)

/** True for an event name a subscription may name; false for `ping` and for unknown names. */
export const isSubscribable = (name: string): name is EventName => byName.get(name)?.subscribable === true

/** The wildcard a subscription names to receive every event. */
export const ALL_EVENTS = "*"

/**
 * Checks the `events` of a subscription: `["*"]`, or names of subscribable events. Gives the list back
 * without duplicates, or the message of a 400 (naming the unknown names).
 */
export const checkEventSelection = (events: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, string> => {
  if (events.length === 0) return Result.fail("must name at least one event, or \"*\" for every event")
  if (events.includes(ALL_EVENTS)) {
    return events.every((event) => event === ALL_EVENTS)
      ? Result.succeed([ALL_EVENTS])
      : Result.fail("must be either [\"*\"] or a list of event names, not both")
  }
  const unknown = Arr.dedupe(events.filter((event) => !isSubscribable(event)))
  return unknown.length === 0
    ? Result.succeed(Arr.dedupe(events))
    : Result.fail(
      `names unknown event${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")} (GET /api/v1/webhook-events lists the events)`
    )
}

/** Whether a subscription that names `events` receives an event named `name` (`ping` is never matched: it is sent directly). */
export const subscriptionReceives = (events: ReadonlyArray<string>, name: string): boolean =>
  isSubscribable(name) && (events.includes(ALL_EVENTS) || events.includes(name))

/** An entry of `GET /api/v1/webhook-events`: the event's name, its description, the JSON Schema of its body. */
export const EventCatalogEntry = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  payloadSchema: Schema.Unknown.annotate({ description: "The JSON Schema (draft-07) of the event's body" })
})
export type EventCatalogEntry = typeof EventCatalogEntry.Type

/** An entry of the list, with its JSON Schema as a value. */
export type CatalogListing = EventCatalogEntry & { readonly payloadSchema: JsonSchema.JsonSchema }

const DEFINITIONS_REF = "#/definitions/"

const isJsonObject = (value: unknown): value is JsonSchema.JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Effect 3's layout of a payload's JSON Schema, which the API has always served: references into `$defs`
 * (v4's draft-07 document names them `definitions`), and `required: []` on an object without required keys.
 */
const asListed = (schema: JsonSchema.JsonSchema): JsonSchema.JsonSchema => {
  const out: JsonSchema.JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "$ref" && typeof value === "string" && value.startsWith(DEFINITIONS_REF)
      ? `#/$defs/${value.slice(DEFINITIONS_REF.length)}`
      : listedValue(value)
  }
  if (out.type === "object" && isJsonObject(out.properties) && out.required === undefined) out.required = []
  return out
}

const listedValue = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(listedValue) : isJsonObject(value) ? asListed(value) : value

/**
 * The draft-07 JSON Schema of an event's body, in Effect 3's shape: `$schema`, the definitions under `$defs`
 * (named after the schemas' identifiers, without v4's `Encoded` suffix), then the root; objects closed
 * (`additionalProperties: false`, as the payload decodes with `onExcessProperty: "error"`) unless they carry
 * an index signature.
 */
export const payloadJsonSchema = (schema: PayloadSchema): JsonSchema.JsonSchema => {
  const document = JsonSchema.toDocumentDraft07(Schema.toJsonSchemaDocument(schema, {
    onExcessProperty: "error",
    referencePolicy: ({ identifier }) => identifier?.replace(/Encoded$/, "")
  }))
  const definitions = Object.entries(document.definitions)
  return {
    $schema: JsonSchema.META_SCHEMA_URI_DRAFT_07,
    ...(definitions.length === 0 ? {} : { $defs: Object.fromEntries(definitions.map(([name, definition]) => [name, asListed(definition)])) }),
    ...asListed(document.schema)
  }
}

/** The list entry of one event. */
export const catalogEntry = (event: EventDefinition): CatalogListing => ({
  name: event.name,
  description: event.description,
  payloadSchema: payloadJsonSchema(event.payload)
})

let listing: ReadonlyArray<CatalogListing> | undefined

/** The entries of `GET /api/v1/webhook-events`: every subscribable event, in catalog order (computed once). */
export const eventCatalogEntries = (): ReadonlyArray<CatalogListing> => {
  listing ??= eventCatalog.filter((event) => event.subscribable).map(catalogEntry)
  return listing
}
