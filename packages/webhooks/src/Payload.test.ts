import { Client, ContractPreviousDates, Payout } from "@bizops/domain"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import * as fc from "fast-check"
import { withoutNegativeZero } from "@bizops/testkit/Json"
import { prop } from "@bizops/testkit/Prop"
import { eventCatalog, findEvent, Refund } from "./Catalog.js"
import { encodeEvent, type EventInput, eventObject, jsonEqual, previousAttributes, resourceOfEvent } from "./Payload.js"

const asRecord = (value: unknown): Readonly<Record<string, unknown>> => {
  if (typeof value !== "object" || value === null) throw new Error("not an object")
  return value as Readonly<Record<string, unknown>>
}

/** The server's input for a generated payload value (the decoded form: dates as Date, resources as domain values). */
const inputOf = (value: unknown): EventInput => {
  const event = asRecord(value)
  const data = asRecord(event.data)
  const createdAt = event.createdAt
  if (!(createdAt instanceof Date)) throw new Error("createdAt is not a Date")
  return {
    id: String(event.id),
    type: String(event.type),
    createdAt,
    organizationId: String(event.organizationId),
    object: asRecord(data.object),
    ...("previousAttributes" in data ? { previousAttributes: asRecord(data.previousAttributes) } : {}),
    ...("refund" in data ? { refund: Schema.decodeUnknownSync(Schema.toType(Refund))(data.refund) } : {}),
    ...("previousDates" in data ? { previousDates: Schema.decodeUnknownSync(Schema.toType(ContractPreviousDates))(data.previousDates) } : {})
  }
}

describe("encodeEvent: the body is the payload schema's JSON form, for every event of the catalog", () => {
  for (const event of eventCatalog) {
    it.prop(event.name, [event.payload], ([value]) => {
      const body = encodeEvent(inputOf(value))
      const parsed: unknown = JSON.parse(body)
      // The schema's JSON form as JSON text carries it (no -0, no undefined): what a receiver reads.
      expect(parsed).toEqual(JSON.parse(JSON.stringify(Schema.encodeSync(Schema.toCodecJson(event.payload))(value))))
      expect(Object.keys(asRecord(parsed))).toEqual(["id", "type", "createdAt", "organizationId", "data"])
      Schema.decodeUnknownSync(Schema.toCodecJson(event.payload), { onExcessProperty: "error" })(parsed)
    }, { arbitrary: { runs: 30 } })
  }
})

const client = new Client({
  id: Schema.decodeSync(Client.fields.id)("1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"),
  name: "Acme",
  status: "active",
  businessId: Schema.decodeSync(Client.fields.businessId)("2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"),
  notes: null,
  taxSettings: { defaultTaxable: false, overrideTaxRate: false, taxRate: null },
  invoiceRemindersEnabled: true,
  attachInvoicePdf: false,
  attachReceiptPdf: false,
  recurringBilling: null,
  sourceSubmissionId: null,
  createdAt: new Date("2026-11-21T09:30:00.000Z"),
  updatedAt: new Date("2026-11-21T09:30:00.000Z")
})
const envelope = {
  id: "0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11",
  createdAt: new Date("2026-11-21T09:31:00Z"),
  organizationId: "7d8e1f0a-3b4c-4d5e-8f6a-7b8c9d0e1f2a"
}
const clientJson =
  "{\"id\":\"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f\",\"name\":\"Acme\",\"status\":\"active\",\"businessId\":\"2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a\",\"notes\":null,\"taxSettings\":{\"defaultTaxable\":false,\"overrideTaxRate\":false,\"taxRate\":null},\"invoiceRemindersEnabled\":true,\"attachInvoicePdf\":false,\"attachReceiptPdf\":false,\"recurringBilling\":null,\"sourceSubmissionId\":null,\"createdAt\":\"2026-11-21T09:30:00.000Z\",\"updatedAt\":\"2026-11-21T09:30:00.000Z\"}"

describe("encodeEvent: the exact text", () => {
  it("client_created", () => {
    expect(encodeEvent({ ...envelope, type: "client_created", object: client })).toBe(
      "{\"id\":\"0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11\",\"type\":\"client_created\",\"createdAt\":\"2026-11-21T09:31:00.000Z\",\"organizationId\":\"7d8e1f0a-3b4c-4d5e-8f6a-7b8c9d0e1f2a\",\"data\":{\"object\":" +
        clientJson + "}}"
    )
  })

  it("client_updated, with previousAttributes", () => {
    const after = new Client({ ...client, name: "Acme Studio", updatedAt: new Date("2026-11-21T09:31:00.000Z") })
    const body = encodeEvent({ ...envelope, type: "client_updated", object: after, previousAttributes: previousAttributes(client, after) })
    expect(JSON.parse(body).data.previousAttributes).toEqual({ name: "Acme", updatedAt: "2026-11-21T09:30:00.000Z" })
    expect(body).toContain(",\"previousAttributes\":{\"name\":\"Acme\",\"updatedAt\":\"2026-11-21T09:30:00.000Z\"}}}")
  })

  it("invoice_refunded, with the invoice and the refund", () => {
    const invoice = { id: "3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b", status: "paid", total: 100, amountPaid: 60 }
    const refund = { paymentId: "4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c", amount: 40, method: "check", reason: "damaged" }
    expect(JSON.parse(encodeEvent({ ...envelope, type: "invoice_refunded", object: invoice, refund }))).toEqual({
      id: envelope.id,
      type: "invoice_refunded",
      createdAt: "2026-11-21T09:31:00.000Z",
      organizationId: envelope.organizationId,
      data: { object: invoice, refund }
    })
  })

  it("contract_amended, with the contract and its dates before", () => {
    const contract = { id: "6b7c8d9e-0f1a-4b2c-8d3e-4f5a6b7c8d9e", effectiveDate: "2027-07-01", expirationDate: null }
    const previousDates = { effectiveDate: "2027-06-01", expirationDate: "2027-12-31" }
    const body = encodeEvent({ ...envelope, type: "contract_amended", object: contract, previousDates })
    expect(JSON.parse(body).data).toEqual({ object: contract, previousDates })
    expect(body).toContain(",\"previousDates\":{\"effectiveDate\":\"2027-06-01\",\"expirationDate\":\"2027-12-31\"}}}")
  })

  it("refuses inputs that would break the contract (the caller's bug)", () => {
    expect(() => encodeEvent({ ...envelope, type: "client_archived", object: client })).toThrow(/unknown event type/)
    expect(() => encodeEvent({ ...envelope, type: "client_updated", object: client })).toThrow(/needs previousAttributes/)
    expect(() => encodeEvent({ ...envelope, type: "client_created", object: client, previousAttributes: {} })).toThrow(/_updated events only/)
    expect(() => encodeEvent({ ...envelope, type: "invoice_refunded", object: { id: "x" } })).toThrow(/needs refund/)
    expect(() =>
      encodeEvent({ ...envelope, type: "sale_refunded", object: { id: "x" }, refund: { paymentId: "p", amount: 1, method: "cash", reason: null } })
    ).toThrow(/invoice_refunded only/)
    expect(() => encodeEvent({ ...envelope, type: "contract_amended", object: { id: "x" } })).toThrow(/needs previousDates/)
    expect(() =>
      encodeEvent({ ...envelope, type: "contract_updated", object: { id: "x" }, previousAttributes: {}, previousDates: { effectiveDate: null, expirationDate: null } })
    ).toThrow(/contract_amended only/)
  })
})

describe("a payout omits paymentCount when it is null", () => {
  const payout = { id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d", amount: 120, grossTotal: null, paymentCount: null, lastReconciledAt: null }

  it("the payout's events are recognised by their names", () => {
    expect(resourceOfEvent("payout_created")).toBe("payout")
    expect(resourceOfEvent("payout_updated")).toBe("payout")
    expect(resourceOfEvent("client_deleted")).toBe("client")
    expect(resourceOfEvent("invoice_refunded")).toBe("invoice")
    expect(resourceOfEvent("sale_voided")).toBe("sale")
    expect(resourceOfEvent("ping")).toBe("webhook")
    expect(resourceOfEvent("follow_up_due")).toBeUndefined()
  })

  it("null: the key is left out; other nulls stay", () => {
    expect(JSON.stringify(eventObject("payout", payout))).toBe(
      "{\"id\":\"5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d\",\"amount\":120,\"grossTotal\":null,\"lastReconciledAt\":null}"
    )
  })

  it("0 and other counts stay (0 means examined and empty)", () => {
    expect(eventObject("payout", { ...payout, paymentCount: 0 })).toHaveProperty("paymentCount", 0)
    expect(eventObject("payout", { ...payout, paymentCount: 7 })).toHaveProperty("paymentCount", 7)
  })

  it("other resources keep a null paymentCount", () => {
    expect(eventObject("sale", payout)).toHaveProperty("paymentCount", null)
    expect(eventObject(undefined, payout)).toHaveProperty("paymentCount", null)
  })

  prop("only paymentCount: null changes, and nothing else", [
    fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== "paymentCount" && k !== "__proto__"), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
    fc.option(fc.nat(), { nil: null })
  ], ([rest, paymentCount]) => {
    const sent = JSON.parse(JSON.stringify(eventObject("payout", { ...rest, paymentCount })))
    expect("paymentCount" in sent).toBe(paymentCount !== null)
    expect(sent).toEqual(paymentCount === null ? rest : { ...rest, paymentCount })
  })
})

describe("payout_updated from two generated payouts", () => {
  const payoutUpdated = findEvent("payout_updated")
  if (payoutUpdated === undefined) throw new Error("payout_updated is not in the catalog")
  const decodeBody = Schema.decodeUnknownSync(Schema.toCodecJson(payoutUpdated.payload), { onExcessProperty: "error" })
  const payouts = Arbitrary.schema(Payout)

  it.prop("neither the object nor previousAttributes carries paymentCount: null, and the body decodes as the catalog says", [payouts, payouts], ([before, after]) => {
    const body = JSON.parse(encodeEvent({
      id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
      type: "payout_updated",
      createdAt: new Date(0),
      organizationId: "0a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
      object: after,
      previousAttributes: previousAttributes(before, after)
    }))
    expect(body.data.object.paymentCount).not.toBeNull()
    expect("paymentCount" in body.data.object).toBe(after.paymentCount !== null)
    expect(body.data.previousAttributes.paymentCount).not.toBeNull()
    expect("paymentCount" in body.data.previousAttributes).toBe(before.paymentCount !== null && before.paymentCount !== after.paymentCount)
    decodeBody(body)
  })
})

describe("jsonEqual", () => {
  it.each<[unknown, unknown, boolean]>([
    [1, 1, true],
    [1, 2, false],
    [Number.NaN, Number.NaN, true],
    ["a", "a", true],
    [null, null, true],
    [null, undefined, false],
    [new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00.000Z"), true],
    [new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00.001Z"), false],
    [new Date("2026-01-01T00:00:00Z"), "2026-01-01T00:00:00.000Z", false],
    [[1, [2, 3]], [1, [2, 3]], true],
    [[1, 2], [1, 2, 3], false],
    [{ a: 1, b: { c: null } }, { b: { c: null }, a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: [] }, { a: {} }, false]
  ])("jsonEqual(%j, %j) is %s", (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal)
    expect(jsonEqual(b, a)).toBe(equal)
  })
})

describe("previousAttributes", () => {
  const fieldNames = Object.keys(Client.fields) as Array<keyof typeof Client.fields>
  const clientArb = Arbitrary.schema(Client)
  /** A client, and the same client with some fields (a flag per field) taken from another one. */
  const changeArb = Arbitrary.map(
    Arbitrary.all([clientArb, clientArb, Arbitrary.all(fieldNames.map(() => Arbitrary.schema(Schema.Boolean)))]),
    ([before, donor, flags]) => {
      const changed = fieldNames.filter((_, i) => flags[i])
      const after = new Client({ ...before, ...Object.fromEntries(changed.map((key) => [key, donor[key]])) })
      return { before, after, changed }
    }
  )
  /** A client's JSON form (dates as ISO strings). */
  const ClientJson = Schema.toCodecJson(Client)
  /** The same value rebuilt from its JSON: new dates, new nested objects. */
  const copy = (c: Client): Client => Schema.decodeSync(ClientJson)(Schema.encodeSync(ClientJson)(c))

  it("a nested object with the same values is unchanged; with another value, its whole old value is given", () => {
    const same = new Client({ ...client, taxSettings: { ...client.taxSettings } })
    expect(previousAttributes(client, same)).toEqual({})
    const changed = new Client({ ...client, taxSettings: { ...client.taxSettings, overrideTaxRate: true, taxRate: 8.875 } })
    expect(previousAttributes(client, changed)).toEqual({ taxSettings: { defaultTaxable: false, overrideTaxRate: false, taxRate: null } })
  })

  it("a change to null and from null are changes", () => {
    expect(previousAttributes(client, new Client({ ...client, notes: "VIP" }))).toEqual({ notes: null })
    expect(previousAttributes(new Client({ ...client, notes: "VIP" }), client)).toEqual({ notes: "VIP" })
  })

  it.prop("gives exactly the changed fields, with their old values", [changeArb], ([{ after, before, changed }]) => {
    const previous: Partial<Client> = previousAttributes(before, after)
    for (const key of fieldNames) {
      const differs = !jsonEqual(before[key], after[key])
      expect([key, key in previous]).toEqual([key, differs])
      if (differs) expect(previous[key]).toBe(before[key])
    }
    for (const key of Object.keys(previous)) expect(changed).toContain(key)
  })

  it.prop("after, with previousAttributes laid over it, is before again", [changeArb], ([{ after, before }]) => {
    const restored = { ...asRecord(Schema.encodeSync(ClientJson)(after)), ...JSON.parse(JSON.stringify(previousAttributes(before, after))) }
    expect(withoutNegativeZero(restored)).toEqual(withoutNegativeZero(Schema.encodeSync(ClientJson)(before)))
  })

  it.prop("nothing changed: {} (even for a copy with new dates and nested objects)", [clientArb], ([c]) => {
    expect(previousAttributes(c, c)).toEqual({})
    expect(previousAttributes(c, copy(c))).toEqual({})
  })

  it.prop("the event carrying it decodes with the client_updated schema", [changeArb], ([{ after, before }]) => {
    const body = encodeEvent({ ...envelope, type: "client_updated", object: after, previousAttributes: previousAttributes(before, after) })
    const payload = findEvent("client_updated")?.payload
    expect(payload).toBeDefined()
    if (payload !== undefined) Schema.decodeUnknownSync(Schema.toCodecJson(payload), { onExcessProperty: "error" })(JSON.parse(body))
  })
})
