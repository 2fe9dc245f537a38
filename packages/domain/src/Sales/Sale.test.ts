import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result, Schema, SchemaIssue } from "effect"
import * as fc from "fast-check"
import { fractionDigits } from "../Common/Money.js"
import { strict } from "../Common/Values.js"
import { formatSaleNumber, importCurrency, Sale, SaleChannels, SaleImport, SaleListParams } from "./Sale.js"
import { saleMoney } from "./SaleMoney.js"
import { revenue } from "./SaleStatus.js"

// ---------------------------------------------------------------------------------------------------
// Import records as a file holds them (JSON), well formed unless a property breaks one field.
// ---------------------------------------------------------------------------------------------------

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The paths ("lineItems.0.unitPrice") of the problems of a record, each once (as the envelope names them), or []. */
const problems = (record: unknown): ReadonlyArray<string> => {
  const result = Schema.decodeUnknownResult(SaleImport)(record, strict)
  if (Result.isSuccess(result)) return []
  return [...new Set(formatIssues(result.failure.issue).issues.map((i) =>
    (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
  ))]
}

const decode = (record: unknown): SaleImport => {
  const result = Schema.decodeUnknownResult(SaleImport)(record, strict)
  if (Result.isFailure(result)) throw new Error(String(result.failure))
  return result.success
}

const uuid = fc.uuid()
const importChannel = fc.constantFrom(...SaleChannels.filter((c) => c !== "api"))
const date = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
const cents = fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100)
const percent = fc.integer({ min: 0, max: 1_000_000 }).map((u) => u / 10_000)

const lineArb = fc.record({
  description: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("\u0000")),
  quantity: fc.integer({ min: 1, max: 1_000_000 }).map((u) => u / 100),
  unitPrice: cents
})

/** A record with a 2-digit currency (or none: USD), optional fields sometimes left out. */
const recordArb = fc.record(
  {
    externalId: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !s.includes("\u0000")),
    channel: importChannel,
    saleDate: date,
    currency: fc.constantFrom("USD", "EUR", "GBP"),
    taxInclusive: fc.boolean(),
    taxRate: percent,
    discountPercent: fc.option(percent, { nil: null }),
    clientId: fc.option(uuid, { nil: null }),
    contactId: fc.option(uuid, { nil: null }),
    businessId: fc.option(uuid, { nil: null }),
    lineItems: fc.array(lineArb, { minLength: 1, maxLength: 5 }),
    payment: fc.record({ method: fc.constantFrom("cash", "processor", "check", "wallet_a"), receivedDate: date }, { requiredKeys: ["method"] }),
    notes: fc.option(fc.string({ maxLength: 100 }).filter((s) => !s.includes("\u0000")), { nil: null })
  },
  { requiredKeys: ["externalId", "channel", "saleDate", "lineItems", "payment"] }
)

describe("SaleImport (contract: sales import record)", () => {
  prop("a well-formed record decodes to itself, with taxInclusive true and taxRate 0 when left out", [recordArb], ([record]) => {
    expect(decode(record)).toEqual({ taxInclusive: true, taxRate: 0, ...record })
  })

  prop("currency stays absent when left out: the organization's currency applies", [recordArb, fc.constantFrom("USD", "EUR", "JPY")], ([record, organization]) => {
    const { currency: _, ...without } = record
    const decoded = decode(without)
    expect(decoded.currency).toBeUndefined()
    expect(importCurrency(decoded, organization)).toBe(organization)
    expect(importCurrency(decoded)).toBe("USD")
    expect(importCurrency(decode({ ...record, currency: "GBP" }), organization)).toBe("GBP")
  })

  prop("the channel api is refused, on channel", [recordArb], ([record]) => {
    expect(problems({ ...record, channel: "api" })).toEqual(["channel"])
  })

  prop("a record without line items is refused, on lineItems", [recordArb], ([record]) => {
    expect(problems({ ...record, lineItems: [] })).toEqual(["lineItems"])
  })

  prop("a quantity of 0 or less, or a negative unit price, is refused on that line", [recordArb, fc.nat(), fc.boolean(), fc.integer({ min: -1000, max: 0 })], ([record, n, onQuantity, bad]) => {
    const index = n % record.lineItems.length
    const lineItems = record.lineItems.map((line, i) =>
      i !== index ? line : onQuantity ? { ...line, quantity: bad } : { ...line, unitPrice: bad - 0.01 }
    )
    expect(problems({ ...record, lineItems })).toEqual([`lineItems.${index}.${onQuantity ? "quantity" : "unitPrice"}`])
  })

  prop("a taxRate or discountPercent outside 0..100 is refused on it", [recordArb, fc.constantFrom("taxRate", "discountPercent"), fc.oneof(fc.double({ min: -1000, max: -0.0001, noNaN: true }), fc.double({ min: 100.0001, max: 1000, noNaN: true }))], ([record, field, value]) => {
    expect(problems({ ...record, [field]: value })).toEqual([field])
  })

  prop("a unit price with more decimals than the currency has is refused on that line (JPY is whole)", [recordArb, fc.nat()], ([record, n]) => {
    const index = n % record.lineItems.length
    const lineItems = record.lineItems.map((line, i) => ({ ...line, unitPrice: i === index ? 12.5 : Math.round(line.unitPrice) }))
    expect(problems({ ...record, currency: "JPY", lineItems })).toEqual([`lineItems.${index}.unitPrice`])
    expect(problems({ ...record, currency: "JPY", lineItems: lineItems.map((line) => ({ ...line, unitPrice: Math.round(line.unitPrice) })) })).toEqual([])
  })

  prop("an unknown field is refused (a typo must not pass silently)", [recordArb, fc.constantFrom("saleNumber", "total", "status", "taxjurisdiction", "line_items")], ([record, field]) => {
    expect(problems({ ...record, [field]: 1 })).toEqual([field])
  })

  prop("a decoded record is what saleMoney takes, and its money is computable", [recordArb], ([record]) => {
    const decoded = decode(record)
    const money = saleMoney(decoded, fractionDigits(importCurrency(decoded)))
    expect(Result.isSuccess(money) && money.success.total === money.success.subtotal + money.success.taxAmount).toBe(true)
  })

  it("needs externalId, channel, saleDate, lineItems and payment", () => {
    expect([...problems({})].sort()).toEqual(["channel", "externalId", "lineItems", "payment", "saleDate"])
    expect(problems({ externalId: "x", channel: "pos", saleDate: "2027-02-30", lineItems: [{ description: "A", quantity: 1, unitPrice: 1 }], payment: { method: "cash" } })).toEqual(["saleDate"])
  })
})

describe("Sale and its list", () => {
  it("a walk-up sale (clientId null) is a valid sale, and timestamps are date-times", () => {
    const sale = Schema.decodeUnknownSync(Schema.toCodecJson(Sale))({
      id: "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b",
      saleNumber: "S-0001",
      businessId: null,
      clientId: null,
      contactId: null,
      channel: "pos",
      externalId: "pos-1",
      saleDate: "2027-04-20",
      currency: "USD",
      status: "partially-refunded",
      voidedAt: null,
      voidReason: null,
      taxJurisdiction: null,
      taxInclusive: true,
      subtotal: 91.85,
      discountPercent: null,
      discountAmount: 0,
      taxRate: 8.875,
      taxAmount: 8.15,
      total: 100,
      amountRefunded: 10,
      notes: null,
      createdAt: "2027-04-20T10:00:00.000Z",
      updatedAt: "2027-04-21T10:00:00.000Z"
    })
    expect(sale.clientId).toBeNull()
    expect(sale.createdAt).toEqual(new Date("2027-04-20T10:00:00.000Z"))
    // revenue takes sales as the API returns them: 91.85 less the revenue of the 10.00 refunded
    // (tax reversed round(8.15 × 10 / 100) = 0.82, so 9.18 of revenue) = 82.67.
    expect(revenue([sale])).toBe(82.67)
  })

  prop("the list filters by every channel (api included) and status, and refuses others", [fc.constantFrom(...SaleChannels), fc.constantFrom("completed", "refunded", "partially-refunded", "voided")], ([channel, status]) => {
    const decode = Schema.decodeUnknownResult(SaleListParams)
    expect(decode({ channel, status, saleDateFrom: "2027-01-01", saleDateTo: "2027-12-31" }, strict)).toEqual(
      Result.succeed({ channel, status, saleDateFrom: "2027-01-01", saleDateTo: "2027-12-31" })
    )
    expect(Result.isFailure(decode({ channel: `${channel}x` }, strict))).toBe(true)
    expect(Result.isFailure(decode({ status: "void" }, strict))).toBe(true)
  })

  it("numbers the series S-0001, S-0002, ...", () => {
    expect([1, 2, 9999, 10000].map(formatSaleNumber)).toEqual(["S-0001", "S-0002", "S-9999", "S-10000"])
  })
})
