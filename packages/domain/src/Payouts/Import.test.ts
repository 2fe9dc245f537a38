import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Schema } from "effect"
import * as fc from "fast-check"
import { fractionDigits, fromMinorUnits } from "../Common/Money.js"
import { strict } from "../Common/Values.js"
import { PaymentId } from "../Payments/Payment.js"
import { payoutImportFields, payoutImportRefusals } from "./Import.js"
import { PayoutImport, PayoutStatuses } from "./Payout.js"

// ---------------------------------------------------------------------------------------------------
// Generators of valid records, of the three populations the contract names: never reconciled (no totals),
// reconciled with disputes recorded (the identity holds to the minor unit), reconciled before disputes
// were recorded (disputeTotal null). A nullable field is sometimes left out and sometimes null.
// ---------------------------------------------------------------------------------------------------

const ORG_CURRENCY = "USD"

/** The contract's list, written out here (not the rule's constant), so that a field dropped from the rule is seen. */
const UNKNOWN_WHEN_UNRECONCILED = ["grossTotal", "feeTotal", "refundTotal", "disputeTotal", "unattributedTotal", "paymentCount"] as const

/** A currency, or none (the organization's, USD). */
const currency = fc.option(fc.constantFrom("USD", "EUR", "JPY", "KWD"), { nil: undefined })
const digitsOf = (cur: string | undefined) => fractionDigits(cur ?? ORG_CURRENCY)

const minor = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 50_000_000 }))

/** A record being built: every field named, undefined where the record leaves it out. */
type Draft = {
  readonly [K in keyof PayoutImport]-?: {} extends Pick<PayoutImport, K> ? PayoutImport[K] | undefined : PayoutImport[K]
}

/** A record's nullable field: null, or left out (undefined here, and then deleted). */
const absent = fc.constantFrom<null | undefined>(null, undefined)

/** The record as a file holds it: the keys whose value is undefined left out, decoded by the schema (unknown keys refused). */
const compact = (draft: Draft): PayoutImport =>
  Schema.decodeUnknownSync(PayoutImport)(Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== undefined)), strict)

const paymentId = fc.uuid({ version: 4 }).map((id) => PaymentId.make(id))
const reconciledAt = fc.integer({ min: 0, max: 3_000 }).map((day) => new Date(Date.UTC(2020, 0, 1) + day * 86_400_000))

/** The fields that do not take part in the rules. */
const base = fc.record({
  processorPayoutId: fc.stringMatching(/^po_[A-Za-z0-9]{8,24}$/),
  currency,
  arrivalDate: fc.oneof(absent, fc.constantFrom("2026-01-05", "2026-11-23")),
  status: fc.constantFrom(...PayoutStatuses),
  type: fc.constantFrom("bank_account", "card"),
  automatic: fc.boolean(),
  description: fc.oneof(absent, fc.constant("STRIPE PAYOUT")),
  bankAccountLast4: fc.oneof(absent, fc.stringMatching(/^[0-9]{4}$/)),
  bankAccountName: fc.oneof(absent, fc.constant("Operating account")),
  failureCode: fc.oneof(absent, fc.constant("account_closed")),
  failureMessage: fc.oneof(absent, fc.constant("The bank account has been closed")),
  paymentIds: fc.option(fc.uniqueArray(paymentId, { maxLength: 4 }), { nil: undefined })
})

/** Never reconciled: lastReconciledAt and every total null or left out; any amount. */
const unreconciled = fc.record({
  b: base,
  amount: fc.integer({ min: 1, max: 50_000_000 }),
  lastReconciledAt: absent,
  grossTotal: absent,
  feeTotal: absent,
  refundTotal: absent,
  disputeTotal: absent,
  unattributedTotal: absent,
  paymentCount: absent
}).map(({ b, amount, ...rest }): Draft => ({ ...b, ...rest, amount: fromMinorUnits(amount, digitsOf(b.currency)) }))

/** Reconciled with disputes recorded: amount = gross − fee − refund − dispute + (unattributed or 0), exactly. */
const reconciledWithDisputes = fc.record({
  b: base,
  lastReconciledAt: reconciledAt,
  gross: minor,
  fee: minor,
  refund: minor,
  dispute: minor,
  unattributed: fc.option(minor, { nil: null }),
  paymentCount: fc.oneof(absent, fc.nat({ max: 500 }))
}).map(({ b, gross, fee, refund, dispute, unattributed, lastReconciledAt, paymentCount }): Draft => {
  const digits = digitsOf(b.currency)
  const u = b.automatic ? null : unattributed
  return {
    ...b,
    lastReconciledAt,
    paymentCount,
    grossTotal: fromMinorUnits(gross, digits),
    feeTotal: fromMinorUnits(fee, digits),
    refundTotal: fromMinorUnits(refund, digits),
    disputeTotal: fromMinorUnits(dispute, digits),
    unattributedTotal: u === null ? null : fromMinorUnits(u, digits),
    amount: fromMinorUnits(gross - fee - refund - dispute + (u ?? 0), digits)
  }
})

/** Reconciled before disputes were recorded: disputeTotal null or left out, the identity short by the unknown dispute. */
const reconciledWithoutDisputes = fc.tuple(reconciledWithDisputes, absent, fc.integer({ min: 0, max: 5_000 })).map(([r, dispute, hidden]): Draft => ({
  ...r,
  disputeTotal: dispute,
  amount: fromMinorUnits(Math.round((r.amount * 10 ** digitsOf(r.currency))) - hidden, digitsOf(r.currency))
}))

const valid = fc.oneof(unreconciled, reconciledWithDisputes, reconciledWithoutDisputes)

/** The paths of a record's refusals; each is a 400 invalid_payload (an `invalid_import` issue at its path). */
const pathsOf = (record: PayoutImport) => {
  const refusals = payoutImportRefusals(record, ORG_CURRENCY)
  for (const r of refusals) expect([r.kind, r.detail]).toEqual(["invalid", "invalid_payload"])
  return refusals.map((r) => r.path)
}

// ---------------------------------------------------------------------------------------------------

describe("valid records pass", () => {
  // Every generated valid record decodes with the schema (unknown fields refused) and has no refusal.
  prop("every valid record passes the schema and the rules", [valid], ([record]) => {
    expect(payoutImportRefusals(compact(record), ORG_CURRENCY)).toEqual([])
  }, { fastCheck: { numRuns: 300 } })

  // A field left out is null (unknown), never 0; the currency is the organization's when not given.
  prop("defaults: a missing nullable field is null, the currency the organization's", [valid], ([record]) => {
    const r = compact(record)
    const fields = payoutImportFields(r, "EUR")
    for (const field of UNKNOWN_WHEN_UNRECONCILED) expect(fields[field]).toBe(r[field] === undefined ? null : r[field])
    expect(fields.lastReconciledAt).toBe(r.lastReconciledAt ?? null)
    expect(fields.currency).toBe(r.currency ?? "EUR")
  })
})

describe("each kind of breakage is refused at its path", () => {
  // An unreconciled payout with any total or count set (0 included) is refused at that field, and only there.
  prop("an unreconciled payout with a non-null total or count", [unreconciled, fc.constantFrom(...UNKNOWN_WHEN_UNRECONCILED), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 }))], ([record, field, value]) => {
    expect(pathsOf(compact({ ...record, automatic: false, [field]: value }))).toEqual([[field]])
  })

  // The identity off by k minor units, on any side: refused at amount.
  prop("a reconciled payout whose identity is off by a minor unit or more", [reconciledWithDisputes, fc.integer({ min: -300, max: 300 }).filter((k) => k !== 0)], ([record, k]) => {
    const digits = digitsOf(record.currency)
    const off = compact({ ...record, amount: fromMinorUnits(Math.round(record.amount * 10 ** digits) + k, digits) })
    expect(pathsOf(off)).toEqual([["amount"]])
  })

  it("a reconciled USD payout off by one cent", () => {
    const record = { processorPayoutId: "po_1", amount: 90.01, status: "paid", type: "bank_account", automatic: true, grossTotal: 100, feeTotal: 3, refundTotal: 5, disputeTotal: 2, lastReconciledAt: new Date("2026-01-05T00:00:00Z") } as const
    expect(payoutImportRefusals({ ...record, amount: 90 }, ORG_CURRENCY)).toEqual([])
    const refusals = payoutImportRefusals(record, ORG_CURRENCY)
    expect(refusals.map((r) => r.path)).toEqual([["amount"]])
    expect(refusals[0]?.message).toContain("(90 USD), off by 0.01")
  })

  // With disputes recorded, an unknown term (null) is not 0: the identity cannot hold, refused at that term.
  prop("a reconciled payout with disputeTotal and a null identity term", [reconciledWithDisputes, fc.constantFrom("grossTotal", "feeTotal", "refundTotal")], ([record, field]) => {
    // The term is 0 and the amount balances with it: read as 0, the null would pass.
    const digits = digitsOf(record.currency)
    const term = record[field] ?? 0
    const sign = field === "grossTotal" ? -1 : 1
    const amount = fromMinorUnits(Math.round(record.amount * 10 ** digits) + sign * Math.round(term * 10 ** digits), digits)
    expect(pathsOf(compact({ ...record, [field]: 0, amount }))).toEqual([])
    expect(pathsOf(compact({ ...record, [field]: null, amount }))).toEqual([[field]])
  })

  // An automatic payout with unattributedTotal set, 0 included, refused there (a manual one passes).
  prop("an automatic payout with unattributedTotal not null", [fc.oneof(reconciledWithDisputes, reconciledWithoutDisputes), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 }))], ([record, value]) => {
    const digits = digitsOf(record.currency)
    const unattributed = fromMinorUnits(value, digits)
    // Rebalanced, so that only the automatic flag is wrong.
    const amount = fromMinorUnits(Math.round(record.amount * 10 ** digits) - Math.round((record.unattributedTotal ?? 0) * 10 ** digits) + value, digits)
    const manual = compact({ ...record, automatic: false, unattributedTotal: unattributed, amount })
    expect(pathsOf(manual)).toEqual([])
    expect(pathsOf({ ...manual, automatic: true })).toEqual([["unattributedTotal"]])
  })

  // A negative refundTotal or disputeTotal, refused there (the amount rebalanced so that the identity holds).
  prop("a negative refundTotal or disputeTotal", [reconciledWithDisputes, fc.constantFrom("refundTotal", "disputeTotal"), fc.integer({ min: 1, max: 10_000 })], ([record, field, k]) => {
    const digits = digitsOf(record.currency)
    const before = Math.round((record[field] ?? 0) * 10 ** digits)
    const amount = fromMinorUnits(Math.round(record.amount * 10 ** digits) + before + k, digits)
    expect(pathsOf(compact({ ...record, [field]: fromMinorUnits(-k, digits), amount }))).toEqual([[field]])
  })

  // An amount with more fraction digits than the currency has.
  it("an amount finer than the currency's minor unit", () => {
    const record = { processorPayoutId: "po_1", amount: 10.005, status: "paid", type: "bank_account", automatic: true } as const
    expect(pathsOf(record)).toEqual([["amount"]])
    expect(pathsOf({ ...record, amount: 10.5, currency: "JPY" })).toEqual([["amount"]])
    expect(pathsOf({ ...record, amount: 10.005, currency: "KWD" })).toEqual([])
  })
})
