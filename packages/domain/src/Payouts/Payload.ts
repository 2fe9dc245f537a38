/**
 * A payout as a webhook body carries it (`data.object`): the resource as the API returns it, except that
 * the key `paymentCount` is absent when the count is null (specification, Payout rule 7 and Events rule 2).
 * Only that key: every other null field stays present as null, and a count of 0 is sent as 0 (examined,
 * held nothing), never dropped.
 */
import { Schema } from "effect"
import { Payout, PayoutPaymentCount, type PayoutStatus } from "./Payout.js"

/** The payout object of a webhook body: the Payout's fields, `paymentCount` absent when unknown. */
export const PayoutEventObject = Schema.Struct({
  ...Payout.fields,
  paymentCount: Schema.optionalKey(PayoutPaymentCount.annotate({
    description: "Payments in the deposit (0: examined and held nothing); the key is absent when the count is unknown"
  }))
}).annotate({
  identifier: "PayoutEventObject",
  description: "The payout as GET /api/v1/payouts/{id} returns it, without the key paymentCount when it is null"
})
export type PayoutEventObject = typeof PayoutEventObject.Type

/** The payout as an event carries it: `paymentCount` left out when null, nothing else changed. */
export const payoutEventObject = (payout: Payout): PayoutEventObject => {
  const { paymentCount, ...rest } = payout
  return paymentCount === null ? rest : { ...rest, paymentCount }
}

/** The JSON form of a payout event object (timestamps as ISO 8601 strings), as it is signed and sent. */
export const encodePayoutEventObject = (payout: Payout): unknown =>
  Schema.encodeSync(Schema.toCodecJson(PayoutEventObject))(payoutEventObject(payout))

/**
 * The status a payout has just reached, when it is one with an event of its own (`payout_paid`,
 * `payout_failed`): paid or failed now, and not before (`previous` undefined: the payout is new, so a payout
 * imported as paid reached it too). Undefined otherwise: another status, or no change.
 */
export const payoutReached = (previous: PayoutStatus | undefined, next: PayoutStatus): "paid" | "failed" | undefined =>
  (next === "paid" || next === "failed") && next !== previous ? next : undefined
