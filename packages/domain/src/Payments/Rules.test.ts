import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { type InvoiceStatusValue, InvoiceStatuses } from "../Invoices/Settlement.js"
import { type Refusal, refusalStatus } from "../Common/Refusal.js"
import { checkPayment, type InvoiceForPayment, type PaymentRequest, type RecordKind, type RefundedPayment } from "./Rules.js"

// ---------------------------------------------------------------------------------------------------
// Generators: a well-formed request of each kind (payments positive, refunds negative and naming a
// payment, adjustments of either sign), and an invoice it may or may not fit.
// ---------------------------------------------------------------------------------------------------

const INVOICE = "inv-1"
const positive = fc.integer({ min: 1, max: 100_000_000 })
const currencyCode = fc.constantFrom("USD", "EUR", "JPY", "BHD")
const clientId = fc.constantFrom("client-1", "client-2", "client-3")
const collectible = fc.constantFrom<InvoiceStatusValue>("sent", "paid")
const notCollectible = fc.constantFrom<InvoiceStatusValue>("draft", "void", "written_off")

const wellFormed = (kind: RecordKind, currency: string, client: string): fc.Arbitrary<PaymentRequest> => {
  switch (kind) {
    case "payment":
      return positive.map((amount) => ({ kind, amount, currency, clientId: client, refundOfId: undefined }))
    case "refund":
      return positive.map((amount) => ({ kind, amount: -amount, currency, clientId: client, refundOfId: "pay-1" }))
    case "adjustment":
      return fc.integer({ min: -100_000_000, max: 100_000_000 }).filter((a) => a !== 0).map((amount) => ({ kind, amount, currency, clientId: client, refundOfId: undefined }))
  }
}

const kind = fc.constantFrom<RecordKind>("payment", "refund", "adjustment")

/** An invoice and a well-formed request for it of any kind, with the same client and currency. */
const fitting = fc.record({ kind, currency: currencyCode, client: clientId, status: collectible, amountPaid: fc.integer({ min: 0, max: 200_000_000 }) }).chain((p) =>
  fc.record({
    request: wellFormed(p.kind, p.currency, p.client),
    invoice: fc.constant<InvoiceForPayment>({ id: INVOICE, status: p.status, clientId: p.client, currency: p.currency, amountPaid: p.amountPaid })
  })
)

/** The refunded payment a refund names: a payment of the same invoice with room left to refund. */
const roomFor = (request: PaymentRequest): RefundedPayment => ({ kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: -request.amount, refunded: 0 })

/** A refusal as the API answers it: its status, detail code, the field it is about and its message. */
interface Answered {
  readonly status: 400 | 404 | 409
  readonly detail: Refusal["detail"]
  readonly field: string | undefined
  readonly message: string
}
const answered = (r: Refusal): Answered => ({ status: refusalStatus(r), detail: r.detail, field: r.path?.join("."), message: r.message })
const refusal = (result: Result.Result<void, Refusal>): Answered | undefined => Result.isFailure(result) ? answered(result.failure) : undefined

describe("checkPayment: who and what (issue 5, payments)", () => {
  // A well-formed request of any kind on a sent or paid invoice of the same client and currency is
  // accepted (refunds naming a payment with room left, adjustments keeping the money >= 0).
  prop("accepts a fitting request", [fitting], ([{ invoice, request }]) => {
    fc.pre(request.kind === "payment" || invoice.amountPaid + request.amount >= 0)
    expect(checkPayment(request, invoice, request.kind === "refund" ? roomFor(request) : undefined)).toEqual(Result.void)
  })

  // payment_client_mismatch (400) when the client differs from the invoice's, whatever else is wrong
  // with the invoice (currency, status).
  prop("another client: 400 payment_client_mismatch", [fitting, clientId, currencyCode, fc.constantFrom(...InvoiceStatuses)], ([{ invoice, request }, other, currency, status]) => {
    fc.pre(other !== invoice.clientId)
    const r = refusal(checkPayment(request, { ...invoice, clientId: other, currency, status }, roomFor(request)))
    expect(r).toMatchObject({ status: 400, detail: "payment_client_mismatch", field: "clientId" })
  })

  // currency_locked (400) when the currency differs from the invoice's, whatever its status.
  prop("another currency: 400 currency_locked", [fitting, currencyCode, fc.constantFrom(...InvoiceStatuses)], ([{ invoice, request }, other, status]) => {
    fc.pre(other !== invoice.currency)
    const r = refusal(checkPayment(request, { ...invoice, currency: other, status }, roomFor(request)))
    expect(r).toMatchObject({ status: 400, detail: "currency_locked", field: "currency" })
  })

  // payment_target_not_collectible (409) on a draft, void or written_off invoice, for every kind.
  prop("a draft, void or written_off invoice: 409 payment_target_not_collectible", [fitting, notCollectible], ([{ invoice, request }, status]) => {
    const r = refusal(checkPayment(request, { ...invoice, status }, roomFor(request)))
    expect(r).toMatchObject({ status: 409, detail: "payment_target_not_collectible" })
  })
})

describe("checkPayment: the shape of a request", () => {
  const base = { currency: "USD", clientId: "client-1" }
  // Enough money on the invoice for any refund generated here (the money rule has its own property).
  const invoice: InvoiceForPayment = { id: INVOICE, status: "sent", clientId: "client-1", currency: "USD", amountPaid: 1_000_000_000 }

  // A payment is positive and names no payment; a refund is negative and names one (400 invalid_payload).
  prop("the sign goes with the kind", [fc.oneof(fc.constantFrom(0, 1, -1), fc.integer({ min: -1_000_000, max: 1_000_000 })), fc.option(fc.constant("pay-1"), { nil: undefined })], ([amount, refundOfId]) => {
    const payment = refusal(checkPayment({ ...base, kind: "payment", amount, refundOfId }, invoice, undefined))
    if (amount <= 0) expect(payment).toMatchObject({ status: 400, detail: "invalid_payload", field: "amount" })
    else if (refundOfId !== undefined) expect(payment).toMatchObject({ status: 400, detail: "invalid_payload", field: "refundOfId" })
    else expect(payment).toBeUndefined()

    const original: RefundedPayment = { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: 1_000_000, refunded: 0 }
    const refund = refusal(checkPayment({ ...base, kind: "refund", amount, refundOfId }, invoice, original))
    if (amount >= 0) expect(refund).toMatchObject({ status: 400, detail: "invalid_payload", field: "amount" })
    else if (refundOfId === undefined) expect(refund).toMatchObject({ status: 400, detail: "invalid_payload", field: "refundOfId" })
    else expect(refund).toBeUndefined()
  })

  // A refund names a payment (kind payment) of the same invoice; anything else is 400 invalid_payload.
  prop("a refund names a payment of the same invoice", [positive, fc.constantFrom("payment", "refund", "adjustment", "chargeback"), fc.constantFrom<string | null>(INVOICE, "inv-2", null), fc.boolean()], ([amount, originalKind, invoiceId, exists]) => {
    const original = exists ? { kind: originalKind, status: "succeeded", invoiceId, amount: amount * 2, refunded: 0 } : undefined
    const r = refusal(checkPayment({ ...base, kind: "refund", amount: -amount, refundOfId: "pay-1" }, invoice, original))
    if (exists && originalKind === "payment" && invoiceId === INVOICE) expect(r).toBeUndefined()
    else expect(r).toMatchObject({ status: 400, detail: "invalid_payload", field: "refundOfId" })
  })

  // An adjustment never takes the money on the invoice below 0 (409).
  prop("an adjustment keeps the money >= 0", [fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: -20_000, max: 20_000 }).filter((a) => a !== 0)], ([paid, amount]) => {
    const r = refusal(checkPayment({ ...base, kind: "adjustment", amount, refundOfId: undefined }, { ...invoice, amountPaid: paid }, undefined))
    if (paid + amount >= 0) expect(r).toBeUndefined()
    else expect(r).toMatchObject({ status: 409, field: "amount" })
  })

  // Nor does a refund, even one its payment has room for (money adjusted away is not refundable).
  prop("a refund keeps the money >= 0", [fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 20_000 })], ([paid, refund]) => {
    const original: RefundedPayment = { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: 20_000, refunded: 0 }
    const r = refusal(checkPayment({ ...base, kind: "refund", amount: -refund, refundOfId: "pay-1" }, { ...invoice, amountPaid: paid }, original))
    if (paid - refund >= 0) expect(r).toBeUndefined()
    else expect(r).toMatchObject({ status: 409, field: "amount" })
  })

  // Only a succeeded payment can be refunded (409 otherwise): money that never arrived cannot go back.
  prop("a refund names a succeeded payment", [fc.constantFrom("pending", "processing", "succeeded", "failed")], ([status]) => {
    const original: RefundedPayment = { kind: "payment", status, invoiceId: INVOICE, amount: 20_000, refunded: 0 }
    const r = refusal(checkPayment({ ...base, kind: "refund", amount: -100, refundOfId: "pay-1" }, invoice, original))
    if (status === "succeeded") expect(r).toBeUndefined()
    else expect(r).toMatchObject({ status: 409, field: "refundOfId" })
  })
})

describe("refunds never exceed the original (issue 5, payments)", () => {
  const base = { kind: "refund" as const, currency: "USD", clientId: "client-1", refundOfId: "pay-1" }
  // Other payments keep money on the invoice, so that only the payment's own limit is at play.
  const invoice: InvoiceForPayment = { id: INVOICE, status: "paid", clientId: "client-1", currency: "USD", amountPaid: 1_000_000_000 }

  // One refund: accepted exactly when what was refunded plus it stays within the payment's amount.
  prop("a refund is accepted iff it fits what is left", [positive, fc.integer({ min: 0, max: 100_000_000 }), positive], ([paymentAmount, refundedRaw, refund]) => {
    const refunded = refundedRaw % (paymentAmount + 1)
    const r = refusal(checkPayment({ ...base, amount: -refund }, invoice, { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: paymentAmount, refunded }))
    if (refunded + refund <= paymentAmount) expect(r).toBeUndefined()
    else expect(r).toMatchObject({ status: 409, field: "amount" })
  })

  // A sequence of refunds against one payment: the accepted ones sum to at most the payment, and each
  // refused one would have gone beyond it.
  prop("the accepted refunds of a payment sum to at most its amount", [fc.integer({ min: 1, max: 10_000 }), fc.array(fc.integer({ min: 1, max: 4_000 }), { maxLength: 20 })], ([paymentAmount, refunds]) => {
    let refunded = 0
    for (const refund of refunds) {
      const original: RefundedPayment = { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: paymentAmount, refunded }
      const result = checkPayment({ ...base, amount: -refund }, { ...invoice, amountPaid: paymentAmount - refunded }, original)
      if (Result.isSuccess(result)) refunded += refund
      else {
        expect(answered(result.failure).status).toBe(409)
        expect(refunded + refund).toBeGreaterThan(paymentAmount)
      }
      expect(refunded).toBeLessThanOrEqual(paymentAmount)
    }
    // a refund of exactly what is left always goes through
    if (refunded < paymentAmount) {
      expect(Result.isSuccess(checkPayment({ ...base, amount: refunded - paymentAmount }, invoice, { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: paymentAmount, refunded }))).toBe(true)
    }
  })

  it("the refusal says how much is left, in major units", () => {
    const r = refusal(checkPayment({ ...base, amount: -800 }, invoice, { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: 1_000, refunded: 250 }))
    expect(r).toMatchObject({ status: 409, detail: undefined, field: "amount" })
    expect(r?.message).toContain("7.5 USD")
    const yen = refusal(checkPayment({ ...base, currency: "JPY", amount: -2 }, { ...invoice, currency: "JPY" }, { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: 1_000, refunded: 999 }))
    expect(yen?.message).toContain("1 JPY")
  })
})
