/**
 * Whether a payment, refund or adjustment may be recorded on an invoice (issue 5; the contract's
 * detail-code table). Pure: the request and what the database holds in, a decision out. Amounts are in
 * minor units.
 */
import { Result } from "effect"
import { fromMinorUnits, fractionDigits } from "../Common/Money.js"
import { refuse, Refusal } from "../Common/Refusal.js"
import type { InvoiceStatusValue } from "../Invoices/Settlement.js"

export type RecordKind = "payment" | "refund" | "adjustment"

export interface PaymentRequest {
  readonly kind: RecordKind
  /** Minor units; a refund is negative. */
  readonly amount: number
  readonly currency: string
  readonly clientId: string
  readonly refundOfId: string | undefined
}

export interface InvoiceForPayment {
  readonly id: string
  readonly status: InvoiceStatusValue
  readonly clientId: string
  readonly currency: string
  /** Minor units: Σ of the invoice's succeeded records so far. */
  readonly amountPaid: number
}

/** The payment a refund names, with what was already refunded of it (minor units, a positive number). */
export interface RefundedPayment {
  readonly kind: string
  readonly status: string
  readonly invoiceId: string | null
  readonly amount: number
  readonly refunded: number
}

/** The invoice statuses that take money: sent and paid (a paid invoice can be refunded or overpaid). */
export const isCollectible = (status: InvoiceStatusValue): boolean => status === "sent" || status === "paid"

/**
 * The checks of the request alone (no database needed), first: a payment is positive, a refund negative
 * and names the payment it refunds, only a refund names one.
 */
export const checkRequestShape = (request: Pick<PaymentRequest, "kind" | "amount" | "refundOfId">): Result.Result<void, Refusal> => {
  switch (request.kind) {
    case "payment":
      if (request.amount <= 0) return refuse(Refusal.invalid(["amount"], "a payment is a positive amount"))
      if (request.refundOfId !== undefined) return refuse(Refusal.invalid(["refundOfId"], "only a refund names the payment it refunds"))
      break
    case "refund":
      if (request.amount >= 0) return refuse(Refusal.invalid(["amount"], "a refund is a negative amount"))
      if (request.refundOfId === undefined) return refuse(Refusal.invalid(["refundOfId"], "a refund must name the payment it refunds"))
      break
    case "adjustment":
      if (request.amount === 0) return refuse(Refusal.invalid(["amount"], "an adjustment is not 0"))
      if (request.refundOfId !== undefined) return refuse(Refusal.invalid(["refundOfId"], "only a refund names the payment it refunds"))
      break
  }
  return Result.void
}

/**
 * The checks against the invoice: the client (payment_client_mismatch), the currency (currency_locked),
 * the invoice's state (payment_target_not_collectible).
 */
export const checkTarget = (request: PaymentRequest, invoice: InvoiceForPayment): Result.Result<void, Refusal> => {
  if (request.clientId !== invoice.clientId) {
    return refuse(Refusal.invalidField("payment_client_mismatch", "clientId", "clientId must be the invoice's client"))
  }
  if (request.currency !== invoice.currency) {
    return refuse(Refusal.invalidField("currency_locked", "currency", `currency must be the invoice's currency, ${invoice.currency}`))
  }
  if (!isCollectible(invoice.status)) {
    return refuse(Refusal.conflict(`A ${invoice.status} invoice cannot take payments; only sent and paid invoices can`, "payment_target_not_collectible", ["invoiceId"]))
  }
  return Result.void
}

/**
 * The checks against the money: a refund names a succeeded payment (kind payment) of the same invoice
 * and the refunds of a payment never exceed it; no refund or adjustment takes the money on the invoice
 * below 0.
 */
export const checkMoney = (
  request: PaymentRequest,
  invoice: InvoiceForPayment,
  original: RefundedPayment | undefined
): Result.Result<void, Refusal> => {
  if (request.kind === "refund") {
    if (original === undefined || original.invoiceId !== invoice.id || original.kind !== "payment") {
      return refuse(Refusal.invalid(["refundOfId"], "refundOfId must name a payment (kind payment) of the same invoice"))
    }
    if (original.status !== "succeeded") {
      return refuse(Refusal.conflict(`The payment is ${original.status}; only a succeeded payment can be refunded`, undefined, ["refundOfId"]))
    }
    if (original.refunded - request.amount > original.amount) {
      return refuse(Refusal.conflict(`The refunds of a payment cannot exceed its amount; ${fromMinorUnits(original.amount - original.refunded, fractionDigits(invoice.currency))} ${invoice.currency} is left to refund`, undefined, ["amount"]))
    }
  }
  if (request.kind !== "payment" && invoice.amountPaid + request.amount < 0) {
    return refuse(Refusal.conflict(`A ${request.kind} cannot take the money on the invoice below 0 (${fromMinorUnits(invoice.amountPaid, fractionDigits(invoice.currency))} ${invoice.currency} is on it)`, undefined, ["amount"]))
  }
  return Result.void
}

/** Every check, in order: the request's shape, then the invoice, then the money. */
export const checkPayment = (
  request: PaymentRequest,
  invoice: InvoiceForPayment,
  original: RefundedPayment | undefined
): Result.Result<void, Refusal> =>
  Result.flatMap(checkRequestShape(request), () => Result.flatMap(checkTarget(request, invoice), () => checkMoney(request, invoice, original)))
