import { describe, expect } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { reimportSale, type SaleIdentity } from "./Reimport.js"

const identity: fc.Arbitrary<SaleIdentity> = fc.record({
  channel: fc.constantFrom("pos", "manual", "storefront"),
  saleDate: fc.constantFrom("2027-04-20", "2027-05-01"),
  currency: fc.constantFrom("USD", "EUR"),
  taxInclusive: fc.boolean(),
  taxRate: fc.integer({ min: 0, max: 25 }),
  discountPercent: fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }),
  clientId: fc.option(fc.uuid(), { nil: null }),
  contactId: fc.option(fc.uuid(), { nil: null }),
  businessId: fc.option(fc.uuid(), { nil: null }),
  total: fc.integer({ min: 0, max: 10_000_00 }),
  lines: fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 10_000 })), { minLength: 1, maxLength: 3 }),
  method: fc.option(fc.constantFrom("cash", "card_present"), { nil: null }),
  receivedDate: fc.option(fc.constantFrom("2027-04-20", "2027-04-21"), { nil: null })
})

/** The same content with its keys in another order, as the database's JSON gives it back. */
const reordered = (value: SaleIdentity): unknown => Object.fromEntries(Object.entries(value).reverse())

const notes = fc.option(fc.string({ maxLength: 10 }), { nil: null })
const FIELDS = ["channel", "saleDate", "currency", "taxInclusive", "taxRate", "discountPercent", "clientId", "contactId", "businessId", "total", "lines", "method", "receivedDate"] as const

describe("a sale imported again", () => {
  prop("the same record is unchanged, whatever the key order of the stored copy", [identity, notes], ([id, n]) => {
    expect(reimportSale({ identity: reordered(id), notes: n }, { identity: id, notes: n, externalId: "x" })).toEqual(Result.succeed("unchanged"))
  })

  prop("only other notes is a change of notes", [identity, notes, notes], ([id, before, after]) => {
    fc.pre(before !== after)
    expect(reimportSale({ identity: id, notes: before }, { identity: id, notes: after, externalId: "x" })).toEqual(Result.succeed("notes"))
  })

  prop("any other field changed is refused, notes or not", [identity, identity, fc.constantFrom(...FIELDS), notes], ([id, other, field, n]) => {
    fc.pre(JSON.stringify(id[field]) !== JSON.stringify(other[field]))
    const changed = { ...id, [field]: other[field] }
    const outcome = reimportSale({ identity: id, notes: n }, { identity: changed, notes: n, externalId: "pos-1" })
    expect(Result.isFailure(outcome)).toBe(true)
    if (Result.isFailure(outcome)) expect(outcome.failure.message).toContain("only notes may change")
  })
})
