import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { fromMinorUnits, hasAtMostDigits } from "../Common/Money.js"
import { PERCENT_DIGITS, QUANTITY_DIGITS } from "../Invoices/Totals.js"
import { MAX_SALE_MINOR, type SaleMoney, saleMoney, type SaleMoneyInput } from "./SaleMoney.js"

// ---------------------------------------------------------------------------------------------------
// The oracle: the contract's formulas in exact rational arithmetic on the decimal strings the inputs
// were written from (no toScaled, toMinorUnits or divideRounded), rounding by truncation and remainder.
// ---------------------------------------------------------------------------------------------------

interface Fraction {
  readonly num: bigint
  readonly den: bigint
}

/** "12.345" → 12345 / 1000. */
const parse = (text: string): Fraction => {
  const [whole, fraction = ""] = text.split(".")
  return { num: BigInt(`${whole}${fraction}`), den: 10n ** BigInt(fraction.length) }
}

const times = (a: Fraction, b: Fraction): Fraction => ({ num: a.num * b.num, den: a.den * b.den })
const over = (a: Fraction, b: Fraction): Fraction => ({ num: a.num * b.den, den: a.den * b.num })
const int = (n: bigint): Fraction => ({ num: n, den: 1n })
const plus = (a: Fraction, b: Fraction): Fraction => ({ num: a.num * b.den + b.num * a.den, den: a.den * b.den })

/** To the nearest integer, a tie going away from zero (den > 0). */
const round = ({ den, num }: Fraction): bigint => {
  const truncated = num / den
  const remainder = num - truncated * den
  const twice = (remainder < 0n ? -remainder : remainder) * 2n
  if (twice < den) return truncated
  return num < 0n ? truncated - 1n : truncated + 1n
}

/** "1234" minor units with `digits` → "12.34". */
const formatMinor = (units: number, digits: number): string => {
  const text = String(units).padStart(digits + 1, "0")
  return digits === 0 ? text : `${text.slice(0, text.length - digits)}.${text.slice(text.length - digits)}`
}

interface OracleSale {
  readonly lines: ReadonlyArray<{ readonly quantity: string; readonly unitPrice: string }>
  readonly discountPercent: string | null
  readonly taxRate: string
  readonly taxInclusive: boolean
  readonly digits: number
}

const oracle = (sale: OracleSale): SaleMoney => {
  const toMinor = int(10n ** BigInt(sale.digits))
  const hundredth: Fraction = { num: 1n, den: 100n }
  const gross = sale.lines.reduce((sum, l) => sum + round(times(times(parse(l.quantity), parse(l.unitPrice)), toMinor)), 0n)
  const discountAmount = sale.discountPercent === null ? 0n : round(times(times(int(gross), parse(sale.discountPercent)), hundredth))
  const rate = parse(sale.taxRate)
  let total: bigint
  let taxAmount: bigint
  if (sale.taxInclusive) {
    total = gross - discountAmount
    taxAmount = total - round(over(int(total), plus(int(1n), times(rate, hundredth))))
  } else {
    taxAmount = round(times(times(int(gross - discountAmount), rate), hundredth))
    total = gross - discountAmount + taxAmount
  }
  return { gross: Number(gross), discountAmount: Number(discountAmount), subtotal: Number(total - taxAmount), taxAmount: Number(taxAmount), total: Number(total) }
}

// ---------------------------------------------------------------------------------------------------
// Generators: every number is an integer count of its smallest unit written as a decimal string.
// ---------------------------------------------------------------------------------------------------

const percent = fc.oneof(
  fc.integer({ min: 0, max: 100 * 10 ** PERCENT_DIGITS }).map((u) => formatMinor(u, PERCENT_DIGITS)),
  fc.constantFrom("0", "5", "10", "12.5", "50", "8.875", "100", "7.25")
)

const lineOf = (digits: number) =>
  fc.record({
    quantity: fc.oneof(
      fc.integer({ min: 1, max: 10_000 * 10 ** QUANTITY_DIGITS }).map((u) => formatMinor(u, QUANTITY_DIGITS)),
      fc.constantFrom("1", "0.5", "1.5", "2.5", "0.0001", "3")
    ),
    unitPrice: fc.integer({ min: 0, max: 10_000_000 }).map((u) => formatMinor(u, digits))
  })

const saleArb: fc.Arbitrary<OracleSale> = fc.constantFrom(0, 2, 3).chain((digits) =>
  fc.record({
    lines: fc.array(lineOf(digits), { minLength: 1, maxLength: 10 }),
    discountPercent: fc.option(percent, { nil: null }),
    taxRate: percent,
    taxInclusive: fc.boolean(),
    digits: fc.constant(digits)
  })
)

const input = (sale: OracleSale): SaleMoneyInput => ({
  lineItems: sale.lines.map((l) => ({ quantity: Number(l.quantity), unitPrice: Number(l.unitPrice) })),
  discountPercent: sale.discountPercent === null ? null : Number(sale.discountPercent),
  taxRate: Number(sale.taxRate),
  taxInclusive: sale.taxInclusive
})

const money = (sale: OracleSale): SaleMoney => {
  const result = saleMoney(input(sale), sale.digits)
  if (Result.isFailure(result)) throw new Error(`expected money, got ${result.failure.message}`)
  return result.success
}

describe("saleMoney (issue 15, the contract's formulas)", () => {
  prop("equals the contract's formulas computed exactly", [saleArb], ([sale]) => {
    expect(money(sale)).toEqual(oracle(sale))
  }, { fastCheck: { numRuns: 500 } })

  prop("total = subtotal + taxAmount, exactly", [saleArb], ([sale]) => {
    const m = money(sale)
    expect(m.total).toBe(m.subtotal + m.taxAmount)
  })

  prop("with taxInclusive the total is gross − discount, whatever the rate", [saleArb, percent, percent], ([sale, rateA, rateB]) => {
    const a = money({ ...sale, taxInclusive: true, taxRate: rateA })
    const b = money({ ...sale, taxInclusive: true, taxRate: rateB })
    expect(a.total).toBe(a.gross - a.discountAmount)
    expect(b.total).toBe(a.total)
  })

  prop("without taxInclusive the subtotal is gross − discount and tax comes on top", [saleArb], ([sale]) => {
    const m = money({ ...sale, taxInclusive: false })
    expect(m.subtotal).toBe(m.gross - m.discountAmount)
    expect(m.total).toBeGreaterThanOrEqual(m.subtotal)
  })

  prop("every amount is whole minor units, so never more fraction digits than the currency", [saleArb], ([sale]) => {
    for (const value of Object.values(money(sale))) {
      expect(Number.isSafeInteger(value)).toBe(true)
      expect(hasAtMostDigits(fromMinorUnits(value, sale.digits), sale.digits)).toBe(true)
    }
  })

  prop("line order does not matter", [saleArb.chain((sale) => fc.tuple(fc.constant(sale), fc.shuffledSubarray([...sale.lines], { minLength: sale.lines.length, maxLength: sale.lines.length })))], ([[sale, shuffled]]) => {
    expect(money({ ...sale, lines: shuffled })).toEqual(money(sale))
  })

  prop("no amount is negative, tax and discount never exceed what they are taken from", [saleArb], ([sale]) => {
    const m = money(sale)
    expect(m.discountAmount).toBeGreaterThanOrEqual(0)
    expect(m.discountAmount).toBeLessThanOrEqual(m.gross)
    expect(m.taxAmount).toBeGreaterThanOrEqual(0)
    expect(m.subtotal).toBeGreaterThanOrEqual(0)
    expect(m.taxAmount).toBeLessThanOrEqual(m.total)
  })

  prop("a rate of 0 means no tax; a discount of 100% means a total of 0", [saleArb], ([sale]) => {
    expect(money({ ...sale, taxRate: "0" }).taxAmount).toBe(0)
    expect(money({ ...sale, discountPercent: "100" }).total).toBe(0)
  })

  prop("gross is a sum of each line's own rounding: the lines twice give exactly twice the gross", [saleArb], ([sale]) => {
    const twice = money({ ...sale, lines: [...sale.lines, ...sale.lines] })
    expect(twice.gross).toBe(2 * money(sale).gross)
  })

  it("rounds a tax-inclusive sale's tax as the contract says (worked examples)", () => {
    // 100.00 at 8.875% inclusive: net = round(10000 / 1.08875) = 9185 (9184.84...), tax 815.
    expect(money({ lines: [{ quantity: "1", unitPrice: "100" }], discountPercent: null, taxRate: "8.875", taxInclusive: true, digits: 2 }))
      .toEqual({ gross: 10000, discountAmount: 0, subtotal: 9185, taxAmount: 815, total: 10000 })
    // 3 × 0.35 = 1.05, 10% off = 0.105 → 0.11 (half away from zero), exclusive 20%: (105 − 11) × 0.2 = 18.8 → 19.
    expect(money({ lines: [{ quantity: "3", unitPrice: "0.35" }], discountPercent: "10", taxRate: "20", taxInclusive: false, digits: 2 }))
      .toEqual({ gross: 105, discountAmount: 11, subtotal: 94, taxAmount: 19, total: 113 })
    // JPY: 0 fraction digits; 1001 inclusive at 10%: round(1001 / 1.1) = 910 (909.999...), tax 91.
    expect(money({ lines: [{ quantity: "1", unitPrice: "1001" }], discountPercent: null, taxRate: "10", taxInclusive: true, digits: 0 }))
      .toEqual({ gross: 1001, discountAmount: 0, subtotal: 910, taxAmount: 91, total: 1001 })
  })

  it("refuses a sale beyond the largest amount, on lineItems", () => {
    const result = saleMoney({ lineItems: [{ quantity: 1_000_000, unitPrice: 9_000_000_000_000 }], taxRate: 0, taxInclusive: true }, 2)
    expect(Result.isFailure(result) && result.failure.path).toEqual(["lineItems"])
    const atMax = saleMoney({ lineItems: [{ quantity: 1, unitPrice: MAX_SALE_MINOR / 100 }], taxRate: 0, taxInclusive: true }, 2)
    expect(Result.isSuccess(atMax)).toBe(true)
  })
})
