import { describe, expect, it } from "@effect/vitest"
import { withoutNegativeZero } from "@bizops/testkit/Json"
import { Result, Schema } from "effect"
import { strict } from "../Common/Values.js"
import { Payout, PayoutImport, PayoutList, PayoutListParams } from "./Payout.js"

const decodeImport = (input: unknown) => Schema.decodeUnknownResult(PayoutImport)(input, strict)
const decodeParams = (input: unknown) => Schema.decodeUnknownResult(PayoutListParams)(input, strict)
const json = Schema.toCodecJson(Payout)

const minimal = { processorPayoutId: "po_1", amount: 100, status: "paid", type: "bank_account", automatic: true }

describe("Payout", () => {
  // The JSON text is the encoded form (the server writes resources with JSON.stringify), and decoding it
  // gives the payout back: a null total stays null, a 0 stays 0.
  it.prop("JSON text is the encoded form and decodes back", [Payout], ([payout]) => {
    const text = JSON.parse(JSON.stringify(payout))
    expect(text).toEqual(withoutNegativeZero(Schema.encodeSync(json)(payout)))
    const back = Schema.decodeUnknownSync(json)(text)
    for (const field of ["grossTotal", "feeTotal", "refundTotal", "disputeTotal", "unattributedTotal", "paymentCount", "lastReconciledAt"] as const) {
      expect(back[field] === null).toBe(payout[field] === null)
    }
  })

  it.prop("Payout list", [PayoutList], ([list]) => {
    expect(JSON.parse(JSON.stringify(list))).toEqual(withoutNegativeZero(Schema.encodeSync(Schema.toCodecJson(PayoutList))(list)))
  }, { arbitrary: { runs: 20 } })

  it("every field of the specification, null totals and count kept", () => {
    const payout = Schema.decodeUnknownSync(json)({
      id: "00000000-0000-0000-0000-000000000001",
      processorPayoutId: "po_1",
      amount: 90,
      currency: "USD",
      arrivalDate: null,
      status: "in_transit",
      type: "bank_account",
      automatic: true,
      description: null,
      bankAccountLast4: "6789",
      bankAccountName: null,
      grossTotal: null,
      feeTotal: null,
      refundTotal: null,
      disputeTotal: null,
      unattributedTotal: null,
      paymentCount: null,
      lastReconciledAt: null,
      failureCode: null,
      failureMessage: null,
      createdAt: "2026-01-05T10:00:00.000Z",
      updatedAt: "2026-01-05T10:00:00.000Z"
    })
    expect(payout.grossTotal).toBeNull()
    expect(payout.paymentCount).toBeNull()
    expect(Object.keys(Payout.fields)).toHaveLength(22)
  })
})

describe("PayoutImport", () => {
  it("takes the required fields alone; left-out nullable fields stay left out (null later, never 0)", () => {
    const result = decodeImport(minimal)
    expect(Result.isSuccess(result)).toBe(true)
    if (Result.isSuccess(result)) expect(result.success.grossTotal).toBeUndefined()
  })

  it("takes null and 0 as different values", () => {
    const zero = decodeImport({ ...minimal, paymentCount: 0, grossTotal: 0 })
    const nulls = decodeImport({ ...minimal, paymentCount: null, grossTotal: null })
    expect(Result.isSuccess(zero) && zero.success.paymentCount === 0 && zero.success.grossTotal === 0).toBe(true)
    expect(Result.isSuccess(nulls) && nulls.success.paymentCount === null && nulls.success.grossTotal === null).toBe(true)
  })

  it.each([
    ["an unknown field", { ...minimal, netTotal: 1 }],
    ["a read-only id", { ...minimal, id: "00000000-0000-0000-0000-000000000001" }],
    ["no processorPayoutId", { amount: 100, status: "paid", type: "bank_account", automatic: true }],
    ["a status not in the list", { ...minimal, status: "settled" }],
    ["a negative paymentCount", { ...minimal, paymentCount: -1 }],
    ["a fractional paymentCount", { ...minimal, paymentCount: 1.5 }],
    ["a total as a string", { ...minimal, grossTotal: "100" }],
    ["a lowercase currency", { ...minimal, currency: "usd" }],
    ["bankAccountLast4 not 4 digits", { ...minimal, bankAccountLast4: "12a4" }],
    ["a payment named twice", { ...minimal, paymentIds: ["00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001"] }],
    ["an infinite amount", { ...minimal, amount: Number.POSITIVE_INFINITY }],
    ["a bad arrival date", { ...minimal, arrivalDate: "2026-02-30" }]
  ])("refuses %s", (_, input) => {
    expect(Result.isFailure(decodeImport(input))).toBe(true)
  })
})

describe("PayoutListParams", () => {
  it("decodes the filters", () => {
    const result = decodeParams({ status: "paid", arrivalDateFrom: "2026-01-01", arrivalDateTo: "2026-01-31", reconciled: "false", page: "2" })
    expect(Result.isSuccess(result)).toBe(true)
    if (Result.isSuccess(result)) {
      expect(result.success.reconciled).toBe(false)
      expect(result.success.page).toBe(2)
    }
  })

  it.each([
    ["reconciled other than true or false", { reconciled: "yes" }],
    ["an unknown status", { status: "settled" }],
    ["a bad date", { arrivalDateFrom: "2026-13-01" }],
    ["page 0", { page: "0" }]
  ])("refuses %s", (_, input) => {
    expect(Result.isFailure(decodeParams(input))).toBe(true)
  })
})
