/**
 * The books entries of a sale (issue 15; contract "Sales (read-only)"): double entry, in minor units.
 *
 *   sale:    debit cash = total; credit sales revenue = subtotal; credit sales tax payable = taxAmount
 *   refund:  the same accounts the other way, for the refunded part: its tax is the sale's tax in
 *            proportion to the amount refunded so far, the rest of the part is revenue
 *   void:    the same accounts the other way, for all that no refund has reversed yet
 *
 * A refund's share is computed from the cumulative amount refunded, not from the part alone:
 * taxReversed(r) = round(taxAmount × r / total), and a part reverses taxReversed(after) − taxReversed(before).
 * So the reversals of any sequence of refunds add up to the reversal of their sum, and the refunds that
 * bring amountRefunded to total reverse exactly the sale's revenue and tax (the last part takes the remainder
 * of the rounding), whatever the parts were.
 */
import { divideRounded } from "../Common/Money.js"

export const BookAccounts = ["cash", "sales_revenue", "sales_tax_payable"] as const
export type BookAccount = typeof BookAccounts[number]

export type BookSide = "debit" | "credit"

/** One line of the books: an account, a side and a positive amount in minor units. */
export interface BookEntry {
  readonly account: BookAccount
  readonly side: BookSide
  readonly amount: number
}

/** What the books of a sale need of it (minor units). */
export interface SaleAmounts {
  readonly subtotal: number
  readonly taxAmount: number
  readonly total: number
}

/** The books of a sale so far: its amounts and how much of the total was refunded (minor units). */
export interface SaleLedger extends SaleAmounts {
  readonly amountRefunded: number
}

/** What an amount of the total is made of: its revenue part and its tax part (they add up to it). */
export interface Split {
  readonly revenue: number
  readonly tax: number
}

/** Lines of 0 are left out: they move nothing, and a sale without tax has no tax line. */
const entries = (lines: ReadonlyArray<BookEntry>): ReadonlyArray<BookEntry> => lines.filter((line) => line.amount !== 0)

/**
 * The tax reversed once `refunded` of the sale's total has been refunded: round(taxAmount × refunded /
 * total), 0 for a sale of total 0. Non-decreasing in `refunded`, and at most `refunded` (tax <= total).
 */
export const taxReversedAt = (sale: SaleAmounts, refunded: number): number =>
  sale.total === 0 ? 0 : Number(divideRounded(BigInt(sale.taxAmount) * BigInt(refunded), BigInt(sale.total)))

/** The revenue and tax reversed once `refunded` of the total has been refunded. */
export const reversedAt = (sale: SaleAmounts, refunded: number): Split => {
  const tax = taxReversedAt(sale, refunded)
  return { revenue: refunded - tax, tax }
}

/** The entries of a sale as it happened: cash in, revenue and tax payable owed. */
export const saleEntries = (sale: SaleAmounts): ReadonlyArray<BookEntry> =>
  entries([
    { account: "cash", side: "debit", amount: sale.total },
    { account: "sales_revenue", side: "credit", amount: sale.subtotal },
    { account: "sales_tax_payable", side: "credit", amount: sale.taxAmount }
  ])

/** The reversal of a split: revenue and tax payable debited, cash credited. */
const reversal = (split: Split): ReadonlyArray<BookEntry> =>
  entries([
    { account: "sales_revenue", side: "debit", amount: split.revenue },
    { account: "sales_tax_payable", side: "debit", amount: split.tax },
    { account: "cash", side: "credit", amount: split.revenue + split.tax }
  ])

/** The revenue and tax of a refund of `amount` after `sale.amountRefunded` was already refunded. */
export const refundSplit = (sale: SaleLedger, amount: number): Split => {
  const before = reversedAt(sale, sale.amountRefunded)
  const after = reversedAt(sale, sale.amountRefunded + amount)
  return { revenue: after.revenue - before.revenue, tax: after.tax - before.tax }
}

/**
 * The entries of a refund of `amount` (0 < amount <= total − amountRefunded: `refundSale` checks it)
 * after `sale.amountRefunded` was already refunded.
 */
export const refundEntries = (sale: SaleLedger, amount: number): ReadonlyArray<BookEntry> => reversal(refundSplit(sale, amount))

/** What a void reverses: all of the sale that its refunds have not reversed. */
export const voidSplit = (sale: SaleLedger): Split => {
  const reversed = reversedAt(sale, sale.amountRefunded)
  return { revenue: sale.subtotal - reversed.revenue, tax: sale.taxAmount - reversed.tax }
}

/** The entries of a void: the rest of the sale reversed in full. */
export const voidEntries = (sale: SaleLedger): ReadonlyArray<BookEntry> => reversal(voidSplit(sale))

/** Σ of the entries on one side. */
export const sideTotal = (lines: ReadonlyArray<BookEntry>, side: BookSide): number =>
  lines.reduce((sum, line) => (line.side === side ? sum + line.amount : sum), 0)

/** Entries balance when their debits equal their credits. */
export const isBalanced = (lines: ReadonlyArray<BookEntry>): boolean => sideTotal(lines, "debit") === sideTotal(lines, "credit")

/**
 * The balance of an account over entries, on its natural side: cash is debits − credits, revenue and
 * tax payable are credits − debits.
 */
export const accountBalance = (lines: ReadonlyArray<BookEntry>, account: BookAccount): number =>
  lines.reduce((sum, line) => {
    if (line.account !== account) return sum
    const debit = line.side === "debit" ? line.amount : -line.amount
    return account === "cash" ? sum + debit : sum - debit
  }, 0)
