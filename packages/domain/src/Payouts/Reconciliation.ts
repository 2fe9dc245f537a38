/**
 * The reconciliation rule of a payout (specification, Payout, rules 1-6). Pure: a payout's figures in, what
 * can be said of its reconciliation out.
 *
 * A null total is unknown and stays unknown: it is never read as 0, so a payout with an unknown term in its
 * identity is never `reconciled`, and its discrepancy is none, not a number. The one term that the contract
 * counts as 0 when null is `unattributedTotal` ("unattributedTotal or 0"): it is not applicable to automatic
 * payouts, and payouts synced before the field existed had no unattributed money recorded.
 */
import { Option } from "effect"
import { fractionDigits, toMinorUnits } from "../Common/Money.js"

/** What the rule reads of a payout (a `Payout`, or an import record once its defaults are filled in). */
export interface PayoutFigures {
  readonly amount: number
  readonly currency: string
  readonly grossTotal: number | null
  readonly feeTotal: number | null
  readonly refundTotal: number | null
  readonly disputeTotal: number | null
  readonly unattributedTotal: number | null
  readonly lastReconciledAt: Date | null
}

export type ReconciliationStatus = "unreconciled" | "reconciled" | "reconciled_without_disputes"

export interface Reconciliation {
  /**
   * - `unreconciled`: never reconciled (`lastReconciledAt` null), or the record says reconciled but its identity
   *   does not hold (a term unknown, or off: then `discrepancy` says by how much);
   * - `reconciled`: reconciled and the identity holds exactly, every term known;
   * - `reconciled_without_disputes`: reconciled before dispute withdrawals were recorded (`disputeTotal` null):
   *   the identity is short by the unknown dispute amount.
   */
  readonly status: ReconciliationStatus
  /**
   * In minor units of the currency, when every term it needs is known (else none, never 0):
   * grossTotal − feeTotal − refundTotal − disputeTotal + unattributedTotal − amount. 0 for `reconciled`. For
   * `reconciled_without_disputes` the dispute term is left out, so the discrepancy is the dispute amount
   * that was withdrawn but not recorded.
   */
  readonly discrepancy: Option.Option<number>
}

/**
 * grossTotal − feeTotal − refundTotal + unattributedTotal − amount in minor units: the identity without its
 * dispute term. None when grossTotal, feeTotal or refundTotal is unknown.
 */
export const discrepancyWithoutDisputes = (payout: PayoutFigures): Option.Option<number> => {
  const { grossTotal, feeTotal, refundTotal } = payout
  if (grossTotal === null || feeTotal === null || refundTotal === null) return Option.none()
  const digits = fractionDigits(payout.currency)
  const minor = (amount: number) => toMinorUnits(amount, digits)
  // "unattributedTotal or 0" (contract): the only term that counts as nothing when not recorded.
  const unattributed = payout.unattributedTotal === null ? 0 : minor(payout.unattributedTotal)
  return Option.some(minor(grossTotal) - minor(feeTotal) - minor(refundTotal) + unattributed - minor(payout.amount))
}

/**
 * The full identity's discrepancy, grossTotal − feeTotal − refundTotal − disputeTotal + unattributedTotal −
 * amount, in minor units: none when a term is unknown (disputeTotal included).
 */
export const identityDiscrepancy = (payout: PayoutFigures): Option.Option<number> => {
  const { disputeTotal } = payout
  if (disputeTotal === null) return Option.none()
  const digits = fractionDigits(payout.currency)
  return Option.map(discrepancyWithoutDisputes(payout), (d) => d - toMinorUnits(disputeTotal, digits))
}

/** The reconciliation of a payout: see `Reconciliation`. */
export const reconcile = (payout: PayoutFigures): Reconciliation => {
  // Rule 2: never reconciled; whatever totals the record holds are not a reconciliation.
  if (payout.lastReconciledAt === null) return { status: "unreconciled", discrepancy: Option.none() }
  // Rule 4: reconciled before disputes were bucketed; short by the unknown dispute amount.
  if (payout.disputeTotal === null) return { status: "reconciled_without_disputes", discrepancy: discrepancyWithoutDisputes(payout) }
  const discrepancy = identityDiscrepancy(payout)
  // Rule 1: reconciled means the identity holds, to the minor unit, with every term known.
  const exact = Option.isSome(discrepancy) && discrepancy.value === 0
  return { status: exact ? "reconciled" : "unreconciled", discrepancy }
}

/**
 * The day a payout was last reconciled (`YYYY-MM-DD`, UTC), or null. Rule 6: older deposits carry a
 * backfilled `lastReconciledAt` (the time of their last sync), so only its day means something.
 */
export const reconciledOn = (payout: { readonly lastReconciledAt: Date | null }): string | null =>
  payout.lastReconciledAt === null ? null : payout.lastReconciledAt.toISOString().slice(0, 10)
