/**
 * The event catalog: every event the service can send, with the JSON Schema of its body, in one place.
 * The server reads it to validate subscriptions and to answer `GET /api/v1/webhook-events`; the OpenAPI
 * document reads the same payload schemas.
 *
 * Adding a resource's events is one line in `subscribableEvents` below:
 * `...resourceEvents("time_entry", TimeEntry)`.
 */
import { Client, Contact, EventDay, Invoice, Payment, Project, TimelineItem, Uuid, Webhook } from "@bizops/domain"
import { Array as Arr, Either, JSONSchema, Schema, SchemaAST } from "effect"

/** One event of the catalog: its name, what it means, the resource it carries, its body's schema. */
export interface EventDefinition<Name extends string = string> {
  readonly name: Name
  readonly description: string
  /** The resource that `data.object` is (singular, underscores: `client`, `time_entry`), when there is one. */
  readonly resource?: string
  /** False only for `ping`, which is sent by `POST /webhooks/{id}/test` and cannot be subscribed to. */
  readonly subscribable: boolean
  /** The schema of the whole body (`{ id, type, createdAt, organizationId, data }`). */
  readonly payload: Schema.Schema.AnyNoContext
}

/** A schema of a resource object: a `Schema.Struct`, a `Schema.Class`, or a struct with an index signature. */
export type ResourceSchema = Schema.Schema.AnyNoContext & { readonly fields: Schema.Struct.Fields }

/** The id of an event: a UUID, also sent as the `webhook-id` header. */
export const EventId = Uuid.annotations({ description: "The event's id (a UUID), also sent as the webhook-id header; the same on every retry" })

/** The `createdAt` of an event: a Date in code, an ISO 8601 UTC string in JSON. */
const EventTimestamp = Schema.Date.annotations({
  jsonSchema: { type: "string", format: "date-time", description: "When the event happened (ISO 8601 UTC, with milliseconds)" }
})

const pascal = (name: string): string =>
  name.split("_").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("")

const humanize = (resource: string): string => resource.replaceAll("_", " ")

/** Any JSON value (in tests, generated as a JSON-safe scalar so that samples survive a JSON round trip). */
const JsonValue = Schema.Unknown.annotations({
  description: "any JSON value",
  arbitrary: () => (fc) => fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))
})

/** A field name (in tests, never `__proto__`, which JSON text and JavaScript objects treat differently). */
const FieldName = Schema.String.annotations({ arbitrary: () => (fc) => fc.string().filter((key) => key !== "__proto__") })

/** The object of an event whose resource has no schema in `@bizops/domain` yet: an object with an id, any other fields. */
export const permissiveObject = (identifier: string, description: string) =>
  Schema.Struct({ id: Uuid }, Schema.Record({ key: FieldName, value: JsonValue })).annotations({ identifier, description })

const notYetDescribed = (what: string, path: string) =>
  `${what} as the API returns it${path === "" ? "" : ` (${path})`}. Its schema is not part of the catalog yet, so it is described here as an object with an id; the issue that adds the resource replaces this with the full schema.`

/** Placeholders for resources whose schemas do not exist yet. Replace each when its resource lands. */
export const SaleObject = permissiveObject("SaleEventObject", notYetDescribed("The sale", "GET /api/v1/sales/{id}"))
export const ContractObject = permissiveObject("ContractEventObject", notYetDescribed("The contract", "GET /api/v1/contracts/{id}"))

/** `data.previousAttributes` of an `_updated` event: the old values of the fields that changed. */
const previousAttributesOf = (object: ResourceSchema, resource: string): Schema.Schema<object> => {
  // A struct is a type literal; a class is a transformation from the type literal of its fields.
  const ast = object.ast
  const fields = SchemaAST.isTypeLiteral(ast)
    ? ast
    : SchemaAST.isTransformation(ast) && SchemaAST.isTypeLiteral(ast.from)
    ? ast.from
    : undefined
  if (fields === undefined) throw new Error(`resourceEvents(${resource}): the object schema must be a Schema.Struct or a Schema.Class`)
  return Schema.make<object>(SchemaAST.partial(fields, { exact: true })).annotations({
    identifier: `${pascal(resource)}PreviousAttributes`,
    description: `The old values of the ${humanize(resource)}'s fields that changed (only those fields)`
  })
}

/** The fields of an event's `data` (schemas without requirements). */
export type DataFields = { readonly [key: string]: Schema.Schema.AnyNoContext }

/** The body of an event: `{ id, type, createdAt, organizationId, data }`. */
const payloadOf = <Name extends string>(name: Name, description: string, data: DataFields) =>
  Schema.Struct({
    id: EventId,
    type: Schema.Literal(name),
    createdAt: EventTimestamp,
    organizationId: Uuid.annotations({ description: "The organization the event belongs to" }),
    data: Schema.Struct(data)
  }).annotations({ identifier: `${pascal(name)}Event`, title: name, description })

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
  paymentId: Uuid.annotations({ description: "The refund's payment record (kind refund; its refundOfId names the payment refunded)" }),
  amount: Schema.Number.pipe(Schema.finite(), Schema.positive()).annotations({ description: "The amount refunded, a positive number in the invoice's currency" }),
  method: Schema.String.annotations({ description: "How the money went back: a payment method (processor, check, bank_transfer, cash, wire, ...)" }),
  reason: Schema.NullOr(Schema.String).annotations({ description: "The refund's notes, or null" })
}).annotations({ identifier: "InvoiceRefund", description: "The refund that caused the event" })
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
  namedEvent("contract_amended", "A contract was amended. data.object is the contract after the amendment.", {
    resource: "contract",
    object: ContractObject
  }),
  createdEvent("sale", SaleObject),
  updatedEvent("sale", SaleObject),
  namedEvent("sale_refunded", "A sale was refunded in full. data.object is the sale after the refund.", { resource: "sale", object: SaleObject }),
  namedEvent("sale_partially_refunded", "Part of a sale was refunded. data.object is the sale after the refund.", {
    resource: "sale",
    object: SaleObject
  }),
  namedEvent("sale_voided", "A sale was voided. data.object is the sale after the void.", { resource: "sale", object: SaleObject })
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
export const EventName = Schema.Literal(...eventNames).annotations({
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
export const checkEventSelection = (events: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, string> => {
  if (events.length === 0) return Either.left("must name at least one event, or \"*\" for every event")
  if (events.includes(ALL_EVENTS)) {
    return events.every((event) => event === ALL_EVENTS)
      ? Either.right([ALL_EVENTS])
      : Either.left("must be either [\"*\"] or a list of event names, not both")
  }
  const unknown = Arr.dedupe(events.filter((event) => !isSubscribable(event)))
  return unknown.length === 0
    ? Either.right(Arr.dedupe(events))
    : Either.left(
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
  payloadSchema: Schema.Unknown.annotations({ description: "The JSON Schema (draft-07) of the event's body" })
})
export type EventCatalogEntry = typeof EventCatalogEntry.Type

/** The list entry of one event. */
export const catalogEntry = (event: EventDefinition): EventCatalogEntry & { readonly payloadSchema: JSONSchema.JsonSchema7Root } => ({
  name: event.name,
  description: event.description,
  payloadSchema: JSONSchema.make(event.payload)
})

let listing: ReadonlyArray<EventCatalogEntry & { readonly payloadSchema: JSONSchema.JsonSchema7Root }> | undefined

/** The entries of `GET /api/v1/webhook-events`: every subscribable event, in catalog order (computed once). */
export const eventCatalogEntries = (): ReadonlyArray<EventCatalogEntry & { readonly payloadSchema: JSONSchema.JsonSchema7Root }> => {
  listing ??= eventCatalog.filter((event) => event.subscribable).map(catalogEntry)
  return listing
}
