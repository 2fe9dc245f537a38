import { Client, Contract } from "@bizops/domain"
import { describe, expect, it } from "@effect/vitest"
import { expectTypeOf } from "vitest"
import { Result, Schema } from "effect"
import {
  checkEventSelection,
  EventCatalogEntry,
  eventCatalog,
  eventCatalogEntries,
  EventName,
  eventNames,
  findEvent,
  isSubscribable,
  resourceEvents,
  subscriptionReceives
} from "./Catalog.js"

const EXPECTED_SUBSCRIBABLE = [
  "client_created",
  "client_updated",
  "client_deleted",
  "contact_created",
  "contact_updated",
  "contact_deleted",
  "project_created",
  "project_updated",
  "project_deleted",
  "invoice_created",
  "invoice_updated",
  "invoice_deleted",
  "payment_created",
  "payment_updated",
  "event_day_created",
  "event_day_updated",
  "event_day_deleted",
  "timeline_item_created",
  "timeline_item_updated",
  "timeline_item_deleted",
  "invoice_refunded",
  "client_reply",
  "client_revision_requested",
  "email_delivery_failed",
  "follow_up_due",
  "payment_processing",
  "receipt_viewed",
  "contract_created",
  "contract_updated",
  "contract_deleted",
  "contract_amended",
  "sale_created",
  "sale_updated",
  "sale_refunded",
  "sale_partially_refunded",
  "sale_voided",
  "payout_created",
  "payout_updated",
  "payout_paid",
  "payout_failed",
  "milestone_created",
  "milestone_updated",
  "milestone_deleted",
  "client_document_created",
  "client_document_updated"
]

type JsonObject = { readonly [key: string]: unknown }
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)
const get = (value: unknown, ...path: Array<string>): unknown =>
  path.reduce<unknown>((current, key) => (isObject(current) ? current[key] : undefined), value)
/** Follows `$ref: "#/$defs/X"` within the root document. */
const resolve = (root: unknown, node: unknown): unknown => {
  const ref = get(node, "$ref")
  return typeof ref === "string" ? resolve(root, get(root, "$defs", ref.replace("#/$defs/", ""))) : node
}
/** The JSON Schema of `data` in an event's payload schema. */
const dataSchema = (name: string): unknown => {
  const root = eventCatalogEntries().find((entry) => entry.name === name)?.payloadSchema
  return resolve(root, get(resolve(root, root), "properties", "data"))
}

describe("the event catalog", () => {
  it("holds exactly the contract's subscribable events, and ping", () => {
    expect([...eventNames]).toEqual(EXPECTED_SUBSCRIBABLE)
    expect(eventCatalog.map((event) => event.name)).toEqual([...EXPECTED_SUBSCRIBABLE, "ping"])
  })

  it("names each event once, singular with underscores", () => {
    expect(new Set(eventCatalog.map((event) => event.name)).size).toBe(eventCatalog.length)
    for (const event of eventCatalog) expect(event.name).toMatch(/^[a-z]+(_[a-z]+)*$/)
  })

  it("the five sale events begin with sale_", () => {
    expect(eventNames.filter((name) => name.startsWith("sale_"))).toHaveLength(5)
  })

  it("every event is subscribable but ping", () => {
    for (const event of eventCatalog) expect([event.name, event.subscribable]).toEqual([event.name, event.name !== "ping"])
    for (const name of EXPECTED_SUBSCRIBABLE) expect(isSubscribable(name)).toBe(true)
    for (const name of ["ping", "client_archived", "", "*", "toString", "__proto__", "Client_created"]) expect(isSubscribable(name)).toBe(false)
  })

  it("EventName is the union of the subscribable names (a compile-time check too)", () => {
    expectTypeOf<"client_created">().toExtend<EventName>()
    expectTypeOf<"sale_partially_refunded">().toExtend<EventName>()
    expectTypeOf<"ping">().not.toExtend<EventName>()
    expectTypeOf<"client_archived">().not.toExtend<EventName>()
    expectTypeOf<typeof EventName.Type>().toEqualTypeOf<EventName>()
  })

  it("EventName accepts the subscribable names only", () => {
    for (const name of EXPECTED_SUBSCRIBABLE) expect(Schema.decodeUnknownSync(EventName)(name)).toBe(name)
    for (const name of ["ping", "client_archived", 1, null]) expect(Result.isFailure(Schema.decodeUnknownResult(EventName)(name))).toBe(true)
  })

  it("every event has a description and a payload whose type is its name", () => {
    for (const event of eventCatalog) expect(event.description.length).toBeGreaterThan(10)
    for (const entry of eventCatalogEntries()) {
      const payload = resolve(entry.payloadSchema, entry.payloadSchema)
      expect(get(payload, "properties", "type", "enum")).toEqual([entry.name])
      expect(get(payload, "required")).toEqual(["id", "type", "createdAt", "organizationId", "data"])
      expect(get(payload, "properties", "createdAt", "format")).toBe("date-time")
    }
  })

  it("created, updated and deleted events carry the resource; only _updated events add previousAttributes", () => {
    for (const name of eventNames) {
      const required = get(dataSchema(name), "required")
      if (name.endsWith("_updated")) expect(required).toEqual(["object", "previousAttributes"])
      else if (name === "invoice_refunded") expect(required).toEqual(["object", "refund"])
      else if (name === "contract_amended") expect(required).toEqual(["object", "previousDates"])
      else expect(required).toEqual(["object"])
    }
    for (const resource of ["client", "contact", "project", "contract", "milestone"]) {
      for (const action of ["created", "updated", "deleted"]) {
        expect(findEvent(`${resource}_${action}`)?.resource).toBe(resource)
      }
    }
  })

  it("data.object of a client event is the Client schema; previousAttributes is every field, none required", () => {
    const data = dataSchema("client_updated")
    const root = eventCatalogEntries().find((entry) => entry.name === "client_updated")?.payloadSchema
    const object = resolve(root, get(data, "properties", "object"))
    const previous = resolve(root, get(data, "properties", "previousAttributes"))
    expect(get(object, "required")).toEqual(Object.keys(Client.fields))
    expect(Object.keys(get(previous, "properties") as JsonObject)).toEqual(Object.keys(Client.fields))
    expect(get(previous, "required")).toEqual([])
    expect(get(previous, "additionalProperties")).toBe(false)
  })

  it("invoice_refunded carries data.refund: paymentId, amount, method, reason", () => {
    const root = eventCatalogEntries().find((entry) => entry.name === "invoice_refunded")?.payloadSchema
    const refund = resolve(root, get(dataSchema("invoice_refunded"), "properties", "refund"))
    expect(get(refund, "required")).toEqual(["paymentId", "amount", "method", "reason"])
    expect(findEvent("invoice_refunded")?.resource).toBe("invoice")
  })

  it("contract_amended carries the Contract and data.previousDates: effectiveDate, expirationDate", () => {
    const root = eventCatalogEntries().find((entry) => entry.name === "contract_amended")?.payloadSchema
    const previous = resolve(root, get(dataSchema("contract_amended"), "properties", "previousDates"))
    expect(get(previous, "required")).toEqual(["effectiveDate", "expirationDate"])
    expect(get(resolve(root, get(dataSchema("contract_amended"), "properties", "object")), "required")).toEqual(Object.keys(Contract.fields))
    expect(findEvent("contract_amended")?.resource).toBe("contract")
  })

  it("lists the subscribable events for GET /api/v1/webhook-events, each decodable as an EventCatalogEntry", () => {
    const entries = eventCatalogEntries()
    expect(entries.map((entry) => entry.name)).toEqual(EXPECTED_SUBSCRIBABLE)
    for (const entry of entries) {
      expect(Schema.decodeUnknownSync(EventCatalogEntry)(JSON.parse(JSON.stringify(entry)))).toEqual(entry)
      expect(get(entry.payloadSchema, "$schema")).toBe("http://json-schema.org/draft-07/schema#")
    }
    expect(eventCatalogEntries()).toBe(entries)
  })
})

describe("resourceEvents: a later resource's three events in one line", () => {
  const TimeEntry = Schema.Struct({
    id: Schema.String.check(Schema.isUUID()),
    hours: Schema.Number,
    description: Schema.NullOr(Schema.String),
    createdAt: Schema.Date
  })
  const [created, updated, deleted] = resourceEvents("time_entry", TimeEntry)

  it("names them and ties them to the resource", () => {
    expect([created.name, updated.name, deleted.name]).toEqual(["time_entry_created", "time_entry_updated", "time_entry_deleted"])
    expect([created.resource, updated.resource, deleted.resource]).toEqual(["time_entry", "time_entry", "time_entry"])
    expect(created.description).toContain("time entry")
  })

  it("their payloads decode real bodies, previousAttributes partial and checked", () => {
    const body = {
      id: "0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11",
      type: "time_entry_updated",
      createdAt: "2026-11-21T09:30:00.000Z",
      organizationId: "7d8e1f0a-3b4c-4d5e-8f6a-7b8c9d0e1f2a",
      data: {
        object: { id: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", hours: 2, description: null, createdAt: "2026-11-20T09:30:00.000Z" },
        previousAttributes: { hours: 1.5 }
      }
    }
    // Bodies are JSON: they decode through the JSON codec (the dates are ISO strings).
    const decode = Schema.decodeUnknownResult(Schema.toCodecJson(updated.payload), { onExcessProperty: "error" })
    expect(Result.isSuccess(decode(body))).toBe(true)
    expect(Result.isFailure(decode({ ...body, data: { ...body.data, previousAttributes: { hours: "many" } } }))).toBe(true)
    expect(Result.isFailure(decode({ ...body, data: { ...body.data, previousAttributes: { unknownField: 1 } } }))).toBe(true)
    expect(Result.isFailure(decode({ ...body, type: "time_entry_created" }))).toBe(true)
    expect(Result.isFailure(Schema.decodeUnknownResult(Schema.toCodecJson(created.payload))({ ...body, type: "time_entry_created", data: { object: {} } }))).toBe(true)
  })
})

describe("subscriptions' event lists", () => {
  it.each([
    [["*"], ["*"]],
    [["*", "*"], ["*"]],
    [["client_created"], ["client_created"]],
    [["client_created", "sale_voided", "client_created"], ["client_created", "sale_voided"]]
  ])("accepts %j", (events, expected) => {
    expect(checkEventSelection(events)).toEqual(Result.succeed(expected))
  })

  it.each([
    [[], "must name at least one event, or \"*\" for every event"],
    [["*", "client_created"], "must be either [\"*\"] or a list of event names, not both"],
    [["client_archived"], "names unknown event: client_archived (GET /api/v1/webhook-events lists the events)"],
    [["ping", "nope", "nope"], "names unknown events: ping, nope (GET /api/v1/webhook-events lists the events)"]
  ])("refuses %j", (events, message) => {
    expect(checkEventSelection(events)).toEqual(Result.fail(message))
  })

  it("a subscription receives the events it names, or all with *, and never ping", () => {
    expect(subscriptionReceives(["*"], "client_created")).toBe(true)
    expect(subscriptionReceives(["client_created"], "client_created")).toBe(true)
    expect(subscriptionReceives(["client_created"], "client_updated")).toBe(false)
    expect(subscriptionReceives(["*"], "ping")).toBe(false)
    expect(subscriptionReceives(["ping"], "ping")).toBe(false)
  })
})
