import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { fractionDigits, fromMinorUnits, toMinorUnits } from "../Common/Money.js"
import { type Refusal, refusalStatus } from "../Common/Refusal.js"
import { accountBalance, type BookEntry, isBalanced, refundEntries, saleEntries, voidEntries } from "./Books.js"
import {
  refundAmountMinor,
  refundSale,
  revenue,
  revenueByCurrency,
  type SaleFacts,
  saleFacts,
  type SaleForRevenue,
  saleStatus,
  type SaleStatusValue,
  voidSale
} from "./SaleStatus.js"

// ---------------------------------------------------------------------------------------------------
// Generators: a sale (minor units, tax at most the total) and what may happen to it afterwards.
// ---------------------------------------------------------------------------------------------------

const AT = new Date("2027-04-21T10:00:00.000Z")

const currencyArb = fc.constantFrom("USD", "EUR", "JPY", "BHD")

/** A sale not yet refunded or voided. */
const freshSale: fc.Arbitrary<SaleFacts> = fc
  .record({ currency: currencyArb, total: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 100_000_000 })) })
  .chain(({ currency, total }) =>
    fc.integer({ min: 0, max: total }).map((taxAmount) => ({
      currency,
      total,
      taxAmount,
      subtotal: total - taxAmount,
      amountRefunded: 0,
      voidedAt: null
    }))
  )

/** A sale with some of it refunded already (0..total), not voided. */
const openSale: fc.Arbitrary<SaleFacts> = freshSale.chain((sale) =>
  fc.integer({ min: 0, max: sale.total }).map((amountRefunded) => ({ ...sale, amountRefunded }))
)

const voidedSale: fc.Arbitrary<SaleFacts> = openSale.map((sale) => ({ ...sale, voidedAt: AT }))

/** Something an operator asks of a sale: a refund (sometimes too much, 0 or negative) or a void. */
type Step = { readonly _tag: "refund"; readonly amount: number } | { readonly _tag: "void" }
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -100, max: 60_000_000 }).map((amount) => ({ _tag: "refund" as const, amount })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 500 }).map((amount) => ({ _tag: "refund" as const, amount })) },
  { weight: 1, arbitrary: fc.constant({ _tag: "void" as const }) }
)

/** A sale's history: its facts after applying every step the rules accept, and all its books entries. */
const play = (sale: SaleFacts, steps: ReadonlyArray<Step>) => {
  let facts = sale
  const entries: Array<BookEntry> = [...saleEntries(sale)]
  const statuses: Array<SaleStatusValue> = [saleStatus(sale)]
  for (const step of steps) {
    if (step._tag === "refund") {
      const result = refundSale(facts, step.amount)
      if (Result.isSuccess(result)) {
        facts = { ...facts, amountRefunded: result.success.amountRefunded }
        entries.push(...result.success.entries)
        statuses.push(result.success.status)
      }
    } else {
      const result = voidSale(facts, "mis-rung", AT)
      if (Result.isSuccess(result)) {
        facts = { ...facts, voidedAt: result.success.voidedAt }
        entries.push(...result.success.entries)
        statuses.push(result.success.status)
      }
    }
  }
  return { facts, entries, statuses }
}

const historyArb = fc.tuple(freshSale, fc.array(stepArb, { maxLength: 8 }))

/** A sale as the API returns it (major units), from its facts. */
const asResource = (facts: SaleFacts): SaleForRevenue => {
  const digits = fractionDigits(facts.currency)
  return {
    currency: facts.currency,
    status: saleStatus(facts),
    subtotal: fromMinorUnits(facts.subtotal, digits),
    taxAmount: fromMinorUnits(facts.taxAmount, digits),
    total: fromMinorUnits(facts.total, digits),
    amountRefunded: fromMinorUnits(facts.amountRefunded, digits)
  }
}

const failure = <A>(result: Result.Result<A, Refusal>): Refusal | undefined =>
  Result.isFailure(result) ? result.failure : undefined

describe("saleStatus (issue 15: derived from refunds and void)", () => {
  prop("voided once voided; else refunded at total, partially-refunded below, completed with none", [openSale, fc.boolean()], ([sale, voided]) => {
    const status = saleStatus({ ...sale, voidedAt: voided ? AT : null })
    const expected: SaleStatusValue = voided
      ? "voided"
      : sale.amountRefunded === 0
      ? "completed"
      : sale.amountRefunded === sale.total
      ? "refunded"
      : "partially-refunded"
    expect(status).toBe(expected)
  })
})

describe("refundSale (issue 15)", () => {
  prop("a refund of up to what is left is accepted: amountRefunded grows by it, the status follows, the books reverse it", [openSale.filter((s) => s.total > s.amountRefunded), fc.double({ min: 0, max: 1, noNaN: true })], ([sale, share]) => {
    const left = sale.total - sale.amountRefunded
    const amount = Math.max(1, Math.min(left, Math.round(left * share)))
    const result = refundSale(sale, amount)
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    expect(result.success.amountRefunded).toBe(sale.amountRefunded + amount)
    expect(result.success.status).toBe(amount === left ? "refunded" : "partially-refunded")
    expect(result.success.entries).toEqual(refundEntries(sale, amount))
    expect(isBalanced(result.success.entries)).toBe(true)
  })

  prop("more than what is left is refused (409 on amount), saying what is left", [openSale, fc.integer({ min: 1, max: 1_000_000 })], ([sale, over]) => {
    const left = sale.total - sale.amountRefunded
    const refusal = failure(refundSale(sale, left + over))
    expect(refusal === undefined ? undefined : [refusalStatus(refusal), refusal.path]).toEqual([409, ["amount"]])
    const digits = fractionDigits(sale.currency)
    expect(refusal?.message).toContain(`${fromMinorUnits(left, digits).toFixed(digits)} ${sale.currency} is left`)
  })

  prop("0, a negative amount or a fraction of a minor unit is refused (400 on amount)", [openSale, fc.oneof(fc.integer({ min: -1_000_000, max: 0 }), fc.double({ min: 0.01, max: 1000, noNaN: true }).filter((x) => !Number.isInteger(x)), fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY))], ([sale, amount]) => {
    const refusal = failure(refundSale(sale, amount))
    expect(refusal === undefined ? undefined : [refusalStatus(refusal), refusal.path]).toEqual([400, ["amount"]])
  })

  prop("a voided sale accepts no refund at all (409)", [voidedSale, fc.integer({ min: -10, max: 1_000_000 })], ([sale, amount]) => {
    const refusal = failure(refundSale(sale, amount))
    expect(refusal === undefined ? undefined : refusalStatus(refusal)).toBe(409)
  })

  prop("whatever is asked, amountRefunded never exceeds total, the books stay balanced and the status never goes back", [historyArb], ([[sale, steps]]) => {
    const { entries, facts, statuses } = play(sale, steps)
    expect(facts.amountRefunded).toBeGreaterThanOrEqual(0)
    expect(facts.amountRefunded).toBeLessThanOrEqual(facts.total)
    expect(isBalanced(entries)).toBe(true)
    const rank: Record<SaleStatusValue, number> = { completed: 0, "partially-refunded": 1, refunded: 2, voided: 3 }
    for (let i = 1; i < statuses.length; i++) {
      const [before, after] = [statuses[i - 1], statuses[i]]
      if (before !== undefined && after !== undefined) expect(rank[after]).toBeGreaterThanOrEqual(rank[before])
    }
    expect(saleStatus(facts)).toBe(statuses[statuses.length - 1])
  })

  it("takes the operator's amount in major units, refusing more decimals than the currency has", () => {
    expect(refundAmountMinor(12.34, "USD")).toEqual(Result.succeed(1234))
    expect(refundAmountMinor(500, "JPY")).toEqual(Result.succeed(500))
    expect(Result.isFailure(refundAmountMinor(12.345, "USD"))).toBe(true)
    expect(Result.isFailure(refundAmountMinor(0.5, "JPY"))).toBe(true)
    expect(Result.isFailure(refundAmountMinor(Number.NaN, "USD"))).toBe(true)
  })
})

describe("voidSale (issue 15)", () => {
  prop("voids an open sale: status voided, when and why, and the books reverse what the refunds left", [openSale], ([sale]) => {
    const result = voidSale(sale, "  rung twice ", AT)
    if (Result.isFailure(result)) throw new Error(result.failure.message)
    expect(result.success).toEqual({ status: "voided", voidedAt: AT, voidReason: "rung twice", entries: voidEntries(sale) })
  })

  prop("a voided sale cannot be voided again (409)", [voidedSale], ([sale]) => {
    const refusal = failure(voidSale(sale, "again", AT))
    expect(refusal === undefined ? undefined : refusalStatus(refusal)).toBe(409)
  })

  prop("a void says why (400 on reason)", [openSale, fc.constantFrom("", " ", "\t\n")], ([sale, reason]) => {
    const refusal = failure(voidSale(sale, reason, AT))
    expect(refusal === undefined ? undefined : [refusalStatus(refusal), refusal.path]).toEqual([400, ["reason"]])
  })
})

describe("revenue (issue 15; specification rule 3)", () => {
  const usdHistories = fc.array(fc.tuple(freshSale.map((s) => ({ ...s, currency: "USD" })), fc.array(stepArb, { maxLength: 6 })), { maxLength: 8 })

  prop("is what the books' revenue account holds after every sale, refund and void", [usdHistories], ([histories]) => {
    const played = histories.map(([sale, steps]) => play(sale, steps))
    const books = played.reduce((sum, p) => sum + accountBalance(p.entries, "sales_revenue"), 0)
    expect(revenue(played.map((p) => asResource(p.facts)))).toBe(fromMinorUnits(books, 2))
  })

  prop("never counts a voided sale, whatever its figures", [usdHistories, voidedSale], ([histories, voided]) => {
    const sales = histories.map(([sale, steps]) => asResource(play(sale, steps).facts))
    const withVoided = [...sales, asResource({ ...voided, currency: "USD" }), { ...asResource({ ...voided, currency: "USD" }), subtotal: null }]
    expect(revenue(withVoided)).toBe(revenue(sales))
  })

  prop("is Σ subtotal when nothing was refunded, and does not depend on the order of the sales", [fc.array(freshSale.map((s) => ({ ...s, currency: "USD" })), { maxLength: 10 })], ([sales]) => {
    const resources = sales.map(asResource)
    expect(revenue(resources)).toBe(fromMinorUnits(sales.reduce((sum, s) => sum + s.subtotal, 0), 2))
    expect(revenue([...resources].reverse())).toBe(revenue(resources))
  })

  prop("a counted sale whose subtotal is unknown makes the revenue unknown, never 0", [usdHistories, freshSale], ([histories, unknown]) => {
    const sales = histories.map(([sale, steps]) => asResource(play(sale, steps).facts))
    expect(revenue([...sales, { ...asResource({ ...unknown, currency: "USD" }), subtotal: null }])).toBeNull()
  })

  it("adds each currency in its own minor units", () => {
    const sales: ReadonlyArray<SaleForRevenue> = [
      { currency: "USD", status: "completed", subtotal: 10.1, taxAmount: 0.9, total: 11, amountRefunded: 0 },
      { currency: "USD", status: "partially-refunded", subtotal: 100, taxAmount: 10, total: 110, amountRefunded: 55 },
      { currency: "JPY", status: "completed", subtotal: 1000, taxAmount: 100, total: 1100, amountRefunded: 0 },
      { currency: "JPY", status: "voided", subtotal: 5000, taxAmount: 500, total: 5500, amountRefunded: 0 }
    ]
    // USD: 10.10 + (100.00 − (55.00 − round(10.00 × 55 / 110) = 50.00)) = 60.10
    expect(revenueByCurrency(sales)).toEqual({ USD: 60.1, JPY: 1000 })
    expect(toMinorUnits(60.1, 2)).toBe(6010)
  })
})

describe("saleFacts: a sale with an unknown total is neither refunded nor voided", () => {
  const maybeMinor = fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null })
  prop("facts exactly when subtotal, taxAmount and total are all known (never a null read as 0); a 409 otherwise", [freshSale, maybeMinor, maybeMinor, maybeMinor], ([sale, subtotal, taxAmount, total]) => {
    const stored = { ...sale, subtotal, taxAmount, total }
    const result = saleFacts(stored)
    if (subtotal !== null && taxAmount !== null && total !== null) {
      expect(result).toEqual(Result.succeed(stored))
    } else {
      expect(Result.isFailure(result) ? refusalStatus(result.failure) : undefined).toBe(409)
    }
  })
})
