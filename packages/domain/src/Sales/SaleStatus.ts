/**
 * The status of a sale and the two things that change it, refund and void (issue 15; specification
 * "Sale (read-only)" rules 3 and 5, contract "Sales (read-only)"). Pure: the sale's facts in, a decision
 * out, amounts in minor units. The status is derived, never stored apart from its facts: voided when
 * voided, else from amountRefunded against total.
 */
import { Result } from "effect"
import { fractionDigits, fromMinorUnits, toMinorUnits } from "../Common/Money.js"
import { refuse, Refusal } from "../Common/Refusal.js"
import { type BookEntry, refundEntries, reversedAt, voidEntries } from "./Books.js"

export const SaleStatuses = ["completed", "refunded", "partially-refunded", "voided"] as const
export type SaleStatusValue = typeof SaleStatuses[number]

/** What decides a sale's status and its refunds (money in minor units). */
export interface SaleFacts {
  readonly currency: string
  readonly subtotal: number
  readonly taxAmount: number
  readonly total: number
  readonly amountRefunded: number
  readonly voidedAt: Date | null
}

/**
 * The status: voided once voided; refunded when the refunds reach the total (a sale of total 0 has
 * nothing to refund and stays completed); partially-refunded when something was refunded; else completed.
 */
export const saleStatus = (sale: Pick<SaleFacts, "total" | "amountRefunded" | "voidedAt">): SaleStatusValue => {
  if (sale.voidedAt !== null) return "voided"
  if (sale.amountRefunded > 0 && sale.amountRefunded >= sale.total) return "refunded"
  if (sale.amountRefunded > 0) return "partially-refunded"
  return "completed"
}

/** A sale as stored, for `saleFacts`: its totals may be unknown (null). */
export interface StoredSaleFacts {
  readonly currency: string
  readonly subtotal: number | null
  readonly taxAmount: number | null
  readonly total: number | null
  readonly amountRefunded: number
  readonly voidedAt: Date | null
}

/**
 * The facts a refund or a void decides on, or why there are none: a sale whose subtotal, taxAmount or total is
 * unknown (null) can be neither refunded nor voided, since its books cannot be reversed (409; null is never 0).
 */
export const saleFacts = (sale: StoredSaleFacts): Result.Result<SaleFacts, Refusal> => {
  const { subtotal, taxAmount, total } = sale
  if (subtotal === null || taxAmount === null || total === null) {
    return refuse(Refusal.conflict("The sale's totals are unknown, so its books cannot be reversed; it can be neither refunded nor voided"))
  }
  return Result.succeed({ currency: sale.currency, subtotal, taxAmount, total, amountRefunded: sale.amountRefunded, voidedAt: sale.voidedAt })
}

/** What a refund does to a sale: its new amountRefunded and status, and the books entries to write. */
export interface SaleRefund {
  readonly amountRefunded: number
  readonly status: SaleStatusValue
  readonly entries: ReadonlyArray<BookEntry>
}

/** An amount as a message says it: every digit of its currency ("30.00 USD"). */
const money = (minor: number, currency: string): string => {
  const digits = fractionDigits(currency)
  return `${fromMinorUnits(minor, digits).toFixed(digits)} ${currency}`
}

/**
 * A refund of `amount` (minor units) of a sale, or why not: a voided sale accepts no refund (409); the
 * amount is a whole number of minor units above 0 (400 on amount); the refunds never exceed the total
 * (409, saying what is left).
 */
export const refundSale = (sale: SaleFacts, amount: number): Result.Result<SaleRefund, Refusal> => {
  if (sale.voidedAt !== null) {
    return refuse(Refusal.conflict("A voided sale accepts no refund", undefined, ["id"]))
  }
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    return refuse(Refusal.invalid(["amount"], `must be more than 0, with at most ${fractionDigits(sale.currency)} decimal places`))
  }
  const left = sale.total - sale.amountRefunded
  if (amount > left) {
    return refuse(Refusal.conflict(`A refund cannot exceed what is left of the sale; ${money(Math.max(left, 0), sale.currency)} is left to refund`, undefined, ["amount"]))
  }
  const amountRefunded = sale.amountRefunded + amount
  return Result.succeed({
    amountRefunded,
    status: saleStatus({ ...sale, amountRefunded }),
    entries: refundEntries(sale, amount)
  })
}

/**
 * A refund amount as the operator writes it (major units) in minor units, or a refusal when it has
 * more decimals than the currency (10.005 USD) or is not a number.
 */
export const refundAmountMinor = (amount: number, currency: string): Result.Result<number, Refusal> => {
  const digits = fractionDigits(currency)
  if (!Number.isFinite(amount) || Number(amount.toFixed(digits)) !== amount) {
    return refuse(Refusal.invalid(["amount"], `must be a number with at most ${digits} decimal places in ${currency}`))
  }
  return Result.succeed(toMinorUnits(amount, digits))
}

/** What a void does to a sale: its status, when and why, and the books entries to write. */
export interface SaleVoid {
  readonly status: "voided"
  readonly voidedAt: Date
  readonly voidReason: string
  readonly entries: ReadonlyArray<BookEntry>
}

/**
 * A void of a sale at `at`, for `reason`, or why not: a voided sale cannot be voided again (409); a void
 * says why (400 on reason). The entries reverse all that the refunds have not.
 */
export const voidSale = (sale: SaleFacts, reason: string, at: Date): Result.Result<SaleVoid, Refusal> => {
  if (sale.voidedAt !== null) {
    return refuse(Refusal.conflict("The sale is already voided", undefined, ["id"]))
  }
  const voidReason = reason.trim()
  if (voidReason === "") return refuse(Refusal.invalid(["reason"], "must not be empty: a void says why"))
  return Result.succeed({ status: "voided", voidedAt: at, voidReason, entries: voidEntries(sale) })
}

/** A sale as the API returns it, for `revenue`: major units, money fields possibly null. */
export interface SaleForRevenue {
  readonly currency: string
  readonly status: SaleStatusValue
  readonly subtotal: number | null
  readonly taxAmount: number | null
  readonly total: number | null
  readonly amountRefunded: number
}

/**
 * The revenue of one sale in minor units: subtotal less the revenue its refunds reversed; 0 for a voided
 * sale (specification rule 3); null when a figure it needs is unknown (null is never read as 0).
 */
export const saleRevenueMinor = (sale: SaleForRevenue): number | null => {
  if (sale.status === "voided") return 0
  if (sale.subtotal === null) return null
  const digits = fractionDigits(sale.currency)
  const subtotal = toMinorUnits(sale.subtotal, digits)
  const amountRefunded = toMinorUnits(sale.amountRefunded, digits)
  if (amountRefunded === 0) return subtotal
  if (sale.taxAmount === null || sale.total === null) return null
  const reversed = reversedAt({ subtotal, taxAmount: toMinorUnits(sale.taxAmount, digits), total: toMinorUnits(sale.total, digits) }, amountRefunded)
  return subtotal - reversed.revenue
}

/**
 * Revenue by currency (major units): Σ subtotal − refunded revenue of the sales of each currency, never
 * counting voided sales. A currency whose revenue cannot be known (a counted sale without subtotal) is null.
 */
export const revenueByCurrency = (sales: ReadonlyArray<SaleForRevenue>): Readonly<Record<string, number | null>> => {
  const minor = new Map<string, number | null>()
  for (const sale of sales) {
    const sum = minor.has(sale.currency) ? minor.get(sale.currency) ?? null : 0
    const own = saleRevenueMinor(sale)
    minor.set(sale.currency, sum === null || own === null ? null : sum + own)
  }
  return Object.fromEntries([...minor].map(([currency, sum]) => [currency, sum === null ? null : fromMinorUnits(sum, fractionDigits(currency))]))
}

/**
 * The revenue of sales of one currency (major units): Σ subtotal − refunded revenue, never counting voided
 * sales (specification rule 3); null when a counted sale's subtotal is unknown. Sales of several
 * currencies do not add up: use `revenueByCurrency`. 0 for no sales.
 */
export const revenue = (sales: ReadonlyArray<SaleForRevenue>): number | null => {
  let sum = 0
  for (const sale of sales) {
    const own = saleRevenueMinor(sale)
    if (own === null) return null
    sum += own
  }
  const first = sales[0]
  return fromMinorUnits(sum, first === undefined ? 2 : fractionDigits(first.currency))
}
