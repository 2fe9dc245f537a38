import { type Filters, fractionDigits, fromMinorUnits, type PageRequest, Payout, type PayoutId, type PayoutListParams } from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { RowOf } from "../Sql/Rows.js"

type Totals = "amount" | "grossTotal" | "feeTotal" | "refundTotal" | "disputeTotal" | "unattributedTotal"

/** A payout as stored: amounts in minor units of its currency; a null total is unknown, never 0. */
export type PayoutRow = Omit<RowOf<typeof Payout>, Totals> & {
  readonly amountMinor: number
  readonly grossTotalMinor: number | null
  readonly feeTotalMinor: number | null
  readonly refundTotalMinor: number | null
  readonly disputeTotalMinor: number | null
  readonly unattributedTotalMinor: number | null
}

export const toPayout = (row: PayoutRow): Payout => {
  const digits = fractionDigits(row.currency)
  const major = (minor: number | null) => minor === null ? null : fromMinorUnits(minor, digits)
  return new Payout({
    ...row,
    amount: fromMinorUnits(row.amountMinor, digits),
    grossTotal: major(row.grossTotalMinor),
    feeTotal: major(row.feeTotalMinor),
    refundTotal: major(row.refundTotalMinor),
    disputeTotal: major(row.disputeTotalMinor),
    unattributedTotal: major(row.unattributedTotalMinor)
  }, { disableChecks: true })
}

const makePayoutsRepo = Effect.gen(function*() {
  const payouts = yield* makeResource({ table: "payouts", what: "payout", toResource: toPayout })

  /**
   * Newest first. The arrival-date range is inclusive at both ends (a payout without an arrival date is
   * in no range); `reconciled` is whether lastReconciledAt is set.
   */
  const list = (filters: Filters<typeof PayoutListParams>, page: PageRequest) => {
    const { arrivalDateFrom, arrivalDateTo, reconciled, ...equalities } = filters
    return payouts.list([
      ...byFilters(equalities),
      ["arrival_date >= ?", arrivalDateFrom],
      ["arrival_date <= ?", arrivalDateTo],
      ["(last_reconciled_at IS NOT NULL) = ?", reconciled]
    ], page)
  }

  return { list, get: (id: PayoutId) => payouts.get(id) } as const
})

/** Payouts, read-only over the API: the processor's deposits, brought by the operator import. */
export class PayoutsRepo extends Context.Service<PayoutsRepo, Effect.Success<typeof makePayoutsRepo>>()("@bizops/server/PayoutsRepo") {
  static readonly layer = Layer.effect(PayoutsRepo, makePayoutsRepo)
}
