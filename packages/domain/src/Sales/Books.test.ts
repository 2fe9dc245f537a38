import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import {
  accountBalance,
  BookAccounts,
  type BookEntry,
  isBalanced,
  refundEntries,
  refundSplit,
  reversedAt,
  type SaleAmounts,
  saleEntries,
  sideTotal,
  voidEntries
} from "./Books.js"

// ---------------------------------------------------------------------------------------------------
// Generators: a sale's amounts (tax at most the total, subtotal the rest) and ways to refund it.
// ---------------------------------------------------------------------------------------------------

/** A sale: total 0..10^9 minor units, often small (where rounding bites), tax 0..total. */
const saleArb: fc.Arbitrary<SaleAmounts> = fc
  .oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 1_000_000_000 }))
  .chain((total) =>
    fc.oneof(fc.integer({ min: 0, max: total }), fc.integer({ min: 0, max: Math.floor(total / 3) })).map((taxAmount) => ({
      total,
      taxAmount,
      subtotal: total - taxAmount
    }))
  )

/** Cuts of `total` into parts above 0 that add up to it (the refunds that refund a sale in full). */
const partition = (total: number): fc.Arbitrary<ReadonlyArray<number>> =>
  total <= 1
    ? fc.constant(total === 0 ? [] : [1])
    : fc.uniqueArray(fc.integer({ min: 1, max: total - 1 }), { maxLength: Math.min(8, total - 1) }).map((cuts) => {
      const points = [0, ...[...cuts].sort((a, b) => a - b), total]
      return points.slice(1).map((p, i) => p - (points[i] ?? 0))
    })

/** A sale with its full refund cut into parts, in the order they are made. */
const refundedInParts = saleArb.chain((sale) => fc.tuple(fc.constant(sale), partition(sale.total)))

/** A sale with a prefix of such parts already refunded (the rest is what a void reverses). */
const partlyRefunded = refundedInParts.chain(([sale, parts]) =>
  fc.integer({ min: 0, max: parts.length }).map((n) => [sale, parts.slice(0, n)] as const)
)

/** The entries of a sale followed by its refunds, in order. */
const withRefunds = (sale: SaleAmounts, parts: ReadonlyArray<number>): { entries: ReadonlyArray<BookEntry>; refunded: number } => {
  let refunded = 0
  const entries: Array<BookEntry> = [...saleEntries(sale)]
  for (const amount of parts) {
    entries.push(...refundEntries({ ...sale, amountRefunded: refunded }, amount))
    refunded += amount
  }
  return { entries, refunded }
}

const positive = (entries: ReadonlyArray<BookEntry>) => entries.every((e) => Number.isSafeInteger(e.amount) && e.amount > 0)

describe("saleEntries (issue 15: the books of a sale)", () => {
  prop("balance, and debit cash = total, credit revenue = subtotal, credit tax payable = taxAmount", [saleArb], ([sale]) => {
    const entries = saleEntries(sale)
    expect(isBalanced(entries)).toBe(true)
    expect(positive(entries)).toBe(true)
    expect(sideTotal(entries.filter((e) => e.account === "cash"), "debit")).toBe(sale.total)
    expect(sideTotal(entries.filter((e) => e.account === "sales_revenue"), "credit")).toBe(sale.subtotal)
    expect(sideTotal(entries.filter((e) => e.account === "sales_tax_payable"), "credit")).toBe(sale.taxAmount)
    expect(sideTotal(entries, "credit")).toBe(sale.total)
  })

  it("writes no line of 0: a sale without tax has no tax line", () => {
    expect(saleEntries({ total: 1000, subtotal: 1000, taxAmount: 0 })).toEqual([
      { account: "cash", side: "debit", amount: 1000 },
      { account: "sales_revenue", side: "credit", amount: 1000 }
    ])
  })
})

describe("refundEntries (issue 15: a refund reverses the refunded part)", () => {
  prop("each refund balances, credits cash by its amount and splits it into revenue and tax parts of 0 or more", [refundedInParts], ([[sale, parts]]) => {
    let refunded = 0
    for (const amount of parts) {
      const ledger = { ...sale, amountRefunded: refunded }
      const entries = refundEntries(ledger, amount)
      const split = refundSplit(ledger, amount)
      expect(isBalanced(entries)).toBe(true)
      expect(positive(entries)).toBe(true)
      expect(accountBalance(entries, "cash")).toBe(0 - amount)
      expect(split.revenue + split.tax).toBe(amount)
      expect(split.revenue).toBeGreaterThanOrEqual(0)
      expect(split.tax).toBeGreaterThanOrEqual(0)
      expect(accountBalance(entries, "sales_revenue")).toBe(0 - split.revenue)
      expect(accountBalance(entries, "sales_tax_payable")).toBe(0 - split.tax)
      refunded += amount
    }
  })

  prop("a refund's tax is the sale's tax in proportion to its amount, within one minor unit", [refundedInParts], ([[sale, parts]]) => {
    let refunded = 0
    for (const amount of parts) {
      const { tax } = refundSplit({ ...sale, amountRefunded: refunded }, amount)
      // |tax − taxAmount × amount / total| <= 1, in integers (bigint: the products pass 2^53).
      const error = BigInt(tax) * BigInt(sale.total) - BigInt(sale.taxAmount) * BigInt(amount)
      expect((error < 0n ? -error : error) <= BigInt(sale.total)).toBe(true)
      refunded += amount
    }
  })

  prop("after refunds of r in all, the tax reversed is taxAmount × r / total rounded half away from zero", [partlyRefunded], ([[sale, parts]]) => {
    const { entries, refunded } = withRefunds(sale, parts)
    const reversed = sale.taxAmount - accountBalance(entries, "sales_tax_payable")
    if (sale.total === 0) {
      expect(reversed).toBe(0) // nothing to refund, nothing reversed
      return
    }
    // Written without division: 2 × |reversed × total − taxAmount × r| <= total, a tie going up.
    // In bigint: the products pass 2^53.
    const error = BigInt(reversed) * BigInt(sale.total) - BigInt(sale.taxAmount) * BigInt(refunded)
    const twice = 2n * (error < 0n ? -error : error)
    expect(twice <= BigInt(sale.total)).toBe(true)
    if (twice === BigInt(sale.total)) expect(error > 0n).toBe(true)
  })

  prop("a full refund in any number of parts reverses exactly the sale: every account back to 0", [refundedInParts], ([[sale, parts]]) => {
    const { entries } = withRefunds(sale, parts)
    expect(isBalanced(entries)).toBe(true)
    for (const account of BookAccounts) expect(accountBalance(entries, account)).toBe(0)
  })

  prop("what refunds reverse depends only on how much was refunded, not on how it was cut", [refundedInParts, fc.integer({ min: 0, max: 8 })], ([[sale, parts], n]) => {
    const prefix = parts.slice(0, n)
    const { entries, refunded } = withRefunds(sale, prefix)
    const once = withRefunds(sale, refunded === 0 ? [] : [refunded]).entries
    for (const account of BookAccounts) expect(accountBalance(entries, account)).toBe(accountBalance(once, account))
    const reversed = reversedAt(sale, refunded)
    expect(accountBalance(entries, "sales_revenue")).toBe(sale.subtotal - reversed.revenue)
    expect(accountBalance(entries, "sales_tax_payable")).toBe(sale.taxAmount - reversed.tax)
  })

  it("the last part takes the remainder of the rounding", () => {
    // 10.00 with 0.91 tax refunded in thirds 3.33 + 3.33 + 3.34: tax 0.30, 0.31, 0.30 (round(91 × 333 / 1000) = 30,
    // round(91 × 666 / 1000) = 61, 91), so the three add up to 0.91 exactly.
    const sale = { total: 1000, taxAmount: 91, subtotal: 909 }
    const taxes = [333, 333, 334].map((amount, i) => refundSplit({ ...sale, amountRefunded: 333 * i }, amount).tax)
    expect(taxes).toEqual([30, 31, 30])
  })
})

describe("voidEntries (issue 15: a void reverses what is left in full)", () => {
  prop("after any refunds, a void balances and brings every account back to 0", [partlyRefunded], ([[sale, parts]]) => {
    const { entries, refunded } = withRefunds(sale, parts)
    const voided = voidEntries({ ...sale, amountRefunded: refunded })
    expect(isBalanced(voided)).toBe(true)
    expect(positive(voided)).toBe(true)
    expect(accountBalance(voided, "cash")).toBe(refunded - sale.total)
    const all = [...entries, ...voided]
    for (const account of BookAccounts) expect(accountBalance(all, account)).toBe(0)
  })

  prop("a void without refunds is the sale's entries the other way", [saleArb], ([sale]) => {
    const flipped = saleEntries(sale).map((e): BookEntry => ({ ...e, side: e.side === "debit" ? "credit" : "debit" }))
    const voided = voidEntries({ ...sale, amountRefunded: 0 })
    const key = (e: BookEntry) => `${e.account}:${e.side}:${e.amount}`
    expect(voided.map(key).sort()).toEqual(flipped.map(key).sort())
  })

  it("a void of a fully refunded sale moves nothing", () => {
    expect(voidEntries({ total: 1000, taxAmount: 91, subtotal: 909, amountRefunded: 1000 })).toEqual([])
  })
})
