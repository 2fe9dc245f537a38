import { type Filters, fractionDigits, fromMinorUnits, type PageRequest, Sale, type SaleId, type SaleListParams } from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { RowOf } from "../Sql/Rows.js"

/** A sale as stored: its money in minor units of its currency (null stays null: unknown, never 0). */
export type SaleRow = Omit<RowOf<typeof Sale>, "subtotal" | "discountAmount" | "taxAmount" | "total" | "amountRefunded"> & {
  readonly subtotalMinor: number | null
  readonly discountAmountMinor: number | null
  readonly taxAmountMinor: number | null
  readonly totalMinor: number | null
  readonly amountRefundedMinor: number
}

export const toSale = (row: SaleRow): Sale => {
  const digits = fractionDigits(row.currency)
  const major = (minor: number | null) => minor === null ? null : fromMinorUnits(minor, digits)
  return new Sale({
    ...row,
    subtotal: major(row.subtotalMinor),
    discountAmount: major(row.discountAmountMinor),
    taxAmount: major(row.taxAmountMinor),
    total: major(row.totalMinor),
    amountRefunded: fromMinorUnits(row.amountRefundedMinor, digits)
  }, { disableChecks: true })
}

const makeSalesRepo = Effect.gen(function*() {
  const sales = yield* makeResource({ table: "sales", what: "sale", toResource: toSale })

  /** Newest first (the contract's rule); the sale-date range is inclusive at both ends. */
  const list = (filters: Filters<typeof SaleListParams>, page: PageRequest) => {
    const { saleDateFrom, saleDateTo, ...equalities } = filters
    return sales.list([...byFilters(equalities), ["sale_date >= ?", saleDateFrom], ["sale_date <= ?", saleDateTo]], page)
  }

  return { list, get: (id: SaleId) => sales.get(id) } as const
})

/**
 * Sales, read-only over the API: they arrive settled through the operator import (a later step writes
 * them) and change only by refund or void, so this repository has no create, update or remove.
 */
export class SalesRepo extends Context.Service<SalesRepo, Effect.Success<typeof makeSalesRepo>>()("@bizops/server/SalesRepo") {
  static readonly layer = Layer.effect(SalesRepo, makeSalesRepo)
}
