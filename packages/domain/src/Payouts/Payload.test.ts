import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Schema } from "effect"
import * as fc from "fast-check"
import { encodePayoutEventObject, PayoutEventObject, payoutEventObject, payoutReached } from "./Payload.js"
import { Payout, PayoutId, PayoutStatuses } from "./Payout.js"

// Payouts with every nullable field null or not, and a count that is null, 0 or more, each often.
const maybe = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: null, freq: 2 })
const total = maybe(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 100)))
const time = fc.integer({ min: 0, max: 100_000 }).map((minute) => new Date(Date.UTC(2024, 0, 1) + minute * 60_000))

const payout = fc.record({
  id: fc.uuid({ version: 4 }).map((id) => PayoutId.make(id)),
  processorPayoutId: fc.stringMatching(/^po_[A-Za-z0-9]{8,24}$/),
  amount: fc.integer({ min: -100_000, max: 10_000_000 }).map((n) => n / 100),
  currency: fc.constantFrom("USD", "EUR"),
  arrivalDate: maybe(fc.constantFrom("2026-01-05", "2026-11-23")),
  status: fc.constantFrom(...PayoutStatuses),
  type: fc.constantFrom("bank_account", "card"),
  automatic: fc.boolean(),
  description: maybe(fc.string()),
  bankAccountLast4: maybe(fc.stringMatching(/^[0-9]{4}$/)),
  bankAccountName: maybe(fc.string()),
  grossTotal: total,
  feeTotal: total,
  refundTotal: total,
  disputeTotal: total,
  unattributedTotal: total,
  paymentCount: fc.oneof(fc.constant(null), fc.constant(0), fc.integer({ min: 1, max: 500 })),
  lastReconciledAt: maybe(time),
  failureCode: maybe(fc.constant("account_closed")),
  failureMessage: maybe(fc.string()),
  createdAt: time,
  updatedAt: time
}).map((fields) => Payout.make(fields))

describe("payout webhook object (rule 7)", () => {
  // paymentCount: absent when null, present (0 included) otherwise; every other key as the resource has it,
  // nulls present as null.
  prop("paymentCount is absent when null, present when 0 or more; nothing else changes", [payout], ([p]) => {
    const body = JSON.parse(JSON.stringify(payoutEventObject(p)))
    const resource = JSON.parse(JSON.stringify(p))
    expect("paymentCount" in body).toBe(p.paymentCount !== null)
    if (p.paymentCount !== null) expect(body.paymentCount).toBe(p.paymentCount)
    const { paymentCount: _, ...others } = resource
    const { paymentCount: __, ...bodyOthers } = body
    expect(bodyOthers).toEqual(others)
    // Every null of the resource but paymentCount is a key with null in the body.
    for (const [key, value] of Object.entries(resource)) {
      if (key !== "paymentCount" && value === null) expect(Object.hasOwn(body, key) && body[key] === null).toBe(true)
    }
  }, { fastCheck: { numRuns: 300 } })

  // The schema of the event object encodes to the same JSON text, and decodes it back.
  prop("the JSON text is the schema's encoded form, and decodes", [payout], ([p]) => {
    const text = JSON.parse(JSON.stringify(payoutEventObject(p)))
    expect(encodePayoutEventObject(p)).toEqual(text)
    expect(Schema.decodeUnknownSync(Schema.toCodecJson(PayoutEventObject))(text)).toEqual(payoutEventObject(p))
  })

  it("0 is sent, null is left out", () => {
    const base = {
      id: "00000000-0000-0000-0000-000000000001",
      processorPayoutId: "po_1",
      amount: 0,
      currency: "USD",
      arrivalDate: null,
      status: "paid",
      type: "bank_account",
      automatic: true,
      description: null,
      bankAccountLast4: null,
      bankAccountName: null,
      grossTotal: 0,
      feeTotal: 0,
      refundTotal: 0,
      disputeTotal: 0,
      unattributedTotal: null,
      paymentCount: 0,
      lastReconciledAt: "2026-01-05T00:00:00.000Z",
      failureCode: null,
      failureMessage: null,
      createdAt: "2026-01-05T00:00:00.000Z",
      updatedAt: "2026-01-05T00:00:00.000Z"
    }
    const zero = Schema.decodeUnknownSync(Schema.toCodecJson(Payout))(base)
    const unknown = Schema.decodeUnknownSync(Schema.toCodecJson(Payout))({ ...base, paymentCount: null })
    expect(JSON.stringify(payoutEventObject(zero))).toContain("\"paymentCount\":0")
    expect(JSON.stringify(payoutEventObject(unknown))).not.toContain("paymentCount")
    expect(JSON.stringify(payoutEventObject(unknown))).toContain("\"unattributedTotal\":null")
  })
})

describe("payoutReached: the events of reaching paid or failed", () => {
  const status = fc.constantFrom(...PayoutStatuses)
  prop("paid or failed once, on the change into it (or a new payout in it); never for another status or no change", [fc.option(status, { nil: undefined }), status], ([previous, next]) => {
    const reached = payoutReached(previous, next)
    const expected = (next === "paid" || next === "failed") && previous !== next ? next : undefined
    expect(reached).toBe(expected)
    // The same status twice never reaches anything again.
    expect(payoutReached(next, next)).toBeUndefined()
  })

  it("a new payout imported as paid reached paid; in_transit → paid reached paid; failed → failed reached nothing", () => {
    expect(payoutReached(undefined, "paid")).toBe("paid")
    expect(payoutReached("in_transit", "paid")).toBe("paid")
    expect(payoutReached("pending", "failed")).toBe("failed")
    expect(payoutReached("failed", "failed")).toBeUndefined()
    expect(payoutReached(undefined, "pending")).toBeUndefined()
  })
})
