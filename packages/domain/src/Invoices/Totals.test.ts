import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { fractionDigits, fromMinorUnits } from "../Common/Money.js"
import {
  addDays,
  daysBetween,
  type InvoiceTotals,
  invoiceDates,
  invoiceTotals,
  type LineInput,
  MAX_INVOICE_MINOR,
  PERCENT_DIGITS,
  QUANTITY_DIGITS,
  taxRateFor,
  utcDate
} from "./Totals.js"

// ---------------------------------------------------------------------------------------------------
// The oracle: exact decimal arithmetic on the strings the inputs were written from. It never calls
// toScaled, toMinorUnits or divideRounded, and it rounds with truncation plus a remainder test rather
// than the implementation's (2|n| + d) / 2d.
// ---------------------------------------------------------------------------------------------------

/** An exact decimal: `units / 10^scale`. */
interface Decimal {
  readonly units: bigint
  readonly scale: number
}

/** "12.345" → { units: 12345n, scale: 3 }. */
const parseDecimal = (text: string): Decimal => {
  const negative = text.startsWith("-")
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".")
  const units = BigInt(`${whole}${fraction}`)
  return { units: negative ? -units : units, scale: fraction.length }
}

/** { units: 12345n, scale: 3 } → "12.345". */
const formatDecimal = (units: bigint, scale: number): string => {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0")
  const text = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`
  return negative ? `-${text}` : text
}

/** The exact product of decimals, as a fraction num / den. */
const product = (...factors: ReadonlyArray<Decimal>): { num: bigint; den: bigint } => ({
  num: factors.reduce((acc, f) => acc * f.units, 1n),
  den: factors.reduce((acc, f) => acc * 10n ** BigInt(f.scale), 1n)
})

/** num / den (den > 0) to the nearest integer, a tie going away from zero. */
const roundFraction = ({ den, num }: { num: bigint; den: bigint }): bigint => {
  const truncated = num / den // BigInt division truncates towards zero
  const remainder = num - truncated * den
  const twice = (remainder < 0n ? -remainder : remainder) * 2n
  if (twice < den) return truncated
  return num < 0n ? truncated - 1n : truncated + 1n
}

interface OracleLine {
  readonly quantity: string
  readonly unitPrice: string
  readonly discountPercent: string | undefined
  readonly taxable: boolean | undefined
}

/** Rule 1, written straight from the issue, in minor units. */
const oracle = (lines: ReadonlyArray<OracleLine>, taxRate: string, defaultTaxable: boolean, digits: number) => {
  const toMinor: Decimal = { units: 10n ** BigInt(digits), scale: 0 }
  const hundredth: Decimal = { units: 1n, scale: 2 } // × 1/100
  const rate = parseDecimal(taxRate)
  const computed = lines.map((line) => {
    const gross = roundFraction(product(parseDecimal(line.quantity), parseDecimal(line.unitPrice), toMinor))
    const discount = line.discountPercent === undefined
      ? 0n
      : roundFraction(product({ units: gross, scale: 0 }, parseDecimal(line.discountPercent), hundredth))
    const total = gross - discount
    const taxable = line.taxable ?? defaultTaxable
    const tax = taxable ? roundFraction(product({ units: total, scale: 0 }, rate, hundredth)) : 0n
    return { gross, discount, total, taxable, tax }
  })
  const subtotal = computed.reduce((s, l) => s + l.gross, 0n)
  const discountAmount = computed.reduce((s, l) => s + l.discount, 0n)
  const taxAmount = computed.reduce((s, l) => s + l.tax, 0n)
  return { lines: computed, subtotal, discountAmount, taxAmount, total: subtotal - discountAmount + taxAmount }
}

/** The oracle's answer in the implementation's shape (numbers), for a deep comparison. */
const asNumbers = (o: ReturnType<typeof oracle>): InvoiceTotals => ({
  lines: o.lines.map((l) => ({ gross: Number(l.gross), discount: Number(l.discount), total: Number(l.total), taxable: l.taxable, tax: Number(l.tax) })),
  subtotal: Number(o.subtotal),
  discountAmount: Number(o.discountAmount),
  taxAmount: Number(o.taxAmount),
  total: Number(o.total)
})

// ---------------------------------------------------------------------------------------------------
// Generators: every number is generated as an integer count of its smallest unit and written out as a
// decimal string, so the input has at most the allowed digits and the oracle reads the same decimal.
// ---------------------------------------------------------------------------------------------------

/** A percentage 0..max with at most PERCENT_DIGITS decimals, often a round one or a tie-prone one. */
const percent = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: max * 10 ** PERCENT_DIGITS }).map((u) => formatDecimal(BigInt(u), PERCENT_DIGITS)),
    fc.constantFrom("0", "5", "10", "12.5", "50", "8.875", "100").filter((p) => Number(p) <= max)
  )

/** A line in a currency with `digits` fraction digits, as strings (for the oracle). */
const line = (digits: number, maxMinorPrice: number): fc.Arbitrary<OracleLine> =>
  fc.record({
    quantity: fc.oneof(
      fc.integer({ min: 1, max: 10_000 * 10 ** QUANTITY_DIGITS }).map((u) => formatDecimal(BigInt(u), QUANTITY_DIGITS)),
      fc.constantFrom("1", "0.5", "1.5", "2.5", "0.0001", "3")
    ),
    unitPrice: fc.integer({ min: 0, max: maxMinorPrice }).map((u) => formatDecimal(BigInt(u), digits)),
    discountPercent: fc.option(percent(100), { nil: undefined }),
    taxable: fc.option(fc.boolean(), { nil: undefined })
  })

/** The same line as the API takes it (numbers). null and undefined discounts both mean none. */
const toInput = (l: OracleLine, nullDiscount: boolean): LineInput => ({
  quantity: Number(l.quantity),
  unitPrice: Number(l.unitPrice),
  taxable: l.taxable,
  discountPercent: l.discountPercent === undefined ? (nullDiscount ? null : undefined) : Number(l.discountPercent)
})

const digitsArb = fc.constantFrom(0, 2, 3)

/** An invoice: currency digits, lines, tax rate, defaultTaxable (sizes kept well inside MAX_INVOICE_MINOR). */
const invoice = digitsArb.chain((digits) =>
  fc.record({
    digits: fc.constant(digits),
    lines: fc.array(line(digits, 10_000_000), { maxLength: 12 }),
    taxRate: percent(30),
    defaultTaxable: fc.boolean(),
    nullDiscount: fc.boolean()
  })
)

const compute = (inv: { lines: ReadonlyArray<OracleLine>; taxRate: string; defaultTaxable: boolean; digits: number; nullDiscount: boolean }) =>
  invoiceTotals(inv.lines.map((l) => toInput(l, inv.nullDiscount)), { taxRate: Number(inv.taxRate), defaultTaxable: inv.defaultTaxable }, inv.digits)

const right = <A, E>(e: Result.Result<A, E>): A => {
  if (Result.isFailure(e)) throw new Error(`expected a result, got ${String(e.failure)}`)
  return e.success
}

/** The currencies of each size: 0, 2 and 3 fraction digits. */
const currency = fc.constantFrom("JPY", "KRW", "USD", "EUR", "BHD", "KWD")

describe("invoice totals (rule 1)", () => {
  // Every line amount and every total equals the exact decimal computation, rounded half away from
  // zero at the three places the issue names (gross, discount from the rounded gross, tax per line).
  prop("equal the exact decimal oracle", [invoice], ([inv]) => {
    expect(right(compute(inv))).toEqual(asNumbers(oracle(inv.lines, inv.taxRate, inv.defaultTaxable, inv.digits)))
  }, { fastCheck: { numRuns: 500 } })

  // The identity total = subtotal − discountAmount + taxAmount holds exactly, as do the sums of lines.
  prop("satisfy the identity and are the sums of their lines", [invoice], ([inv]) => {
    const t = right(compute(inv))
    expect(t.total).toBe(t.subtotal - t.discountAmount + t.taxAmount)
    expect(t.subtotal).toBe(t.lines.reduce((s, l) => s + l.gross, 0))
    expect(t.discountAmount).toBe(t.lines.reduce((s, l) => s + l.discount, 0))
    expect(t.taxAmount).toBe(t.lines.reduce((s, l) => s + l.tax, 0))
    for (const l of t.lines) {
      expect(l.total).toBe(l.gross - l.discount)
      if (!l.taxable) expect(l.tax).toBe(0)
    }
  })

  // Totals do not depend on the order of the lines; each line's amounts move with it.
  prop("do not depend on line order", [invoice.chain((inv) => fc.tuple(fc.constant(inv), fc.shuffledSubarray(inv.lines.map((_, i) => i), { minLength: inv.lines.length, maxLength: inv.lines.length })))], ([[inv, order]]) => {
    const a = right(compute(inv))
    const b = right(compute({ ...inv, lines: order.map((i) => inv.lines[i]) }))
    expect([b.subtotal, b.discountAmount, b.taxAmount, b.total]).toEqual([a.subtotal, a.discountAmount, a.taxAmount, a.total])
    expect(b.lines).toEqual(order.map((i) => a.lines[i]))
  })

  // A 100% discount gives a zero line: the whole gross is discounted, nothing is left to tax.
  prop("a 100% discount gives a zero line", [invoice, digitsArb.chain((d) => line(d, 10_000_000).map((l) => ({ d, l })))], ([inv, { d, l }]) => {
    const free = { ...l, discountPercent: "100" }
    const t = right(compute({ ...inv, digits: d, lines: [free] }))
    const [only] = t.lines
    expect(only.discount).toBe(only.gross)
    expect(only.total).toBe(0)
    expect(only.tax).toBe(0)
    expect(t.total).toBe(0)
    expect(t.subtotal).toBe(t.discountAmount)
  })

  // No result has more fraction digits than the currency allows: amounts are whole minor units, and in
  // major units they carry at most fractionDigits(currency) decimals (0 for JPY, 2 for USD, 3 for BHD).
  prop("never have more fraction digits than the currency allows", [currency.chain((c) => {
    const digits = fractionDigits(c)
    return fc.record({ c: fc.constant(c), lines: fc.array(line(digits, 10_000_000), { maxLength: 8 }), taxRate: percent(30), defaultTaxable: fc.boolean() })
  })], ([{ c, defaultTaxable, lines, taxRate }]) => {
    const digits = fractionDigits(c)
    const t = right(invoiceTotals(lines.map((l) => toInput(l, false)), { taxRate: Number(taxRate), defaultTaxable }, digits))
    const amounts = [t.subtotal, t.discountAmount, t.taxAmount, t.total, ...t.lines.flatMap((l) => [l.gross, l.discount, l.total, l.tax])]
    for (const minor of amounts) {
      expect(Number.isSafeInteger(minor)).toBe(true)
      const major = String(fromMinorUnits(minor, digits))
      expect(major.includes(".") ? major.split(".")[1].length : 0).toBeLessThanOrEqual(digits)
    }
  })

  // A line without `taxable` takes the client's defaultTaxable; a line that says it keeps its own.
  prop("a line without taxable takes defaultTaxable", [invoice], ([inv]) => {
    const withTrue = right(compute({ ...inv, defaultTaxable: true }))
    const withFalse = right(compute({ ...inv, defaultTaxable: false }))
    inv.lines.forEach((l, i) => {
      expect(withTrue.lines[i].taxable).toBe(l.taxable ?? true)
      expect(withFalse.lines[i].taxable).toBe(l.taxable ?? false)
      if (l.taxable !== undefined) expect(withFalse.lines[i]).toEqual(withTrue.lines[i])
      else expect(withFalse.lines[i].tax).toBe(0)
    })
  })

  // Beyond MAX_INVOICE_MINOR the totals are refused (a Left with a message), never a wrong number.
  prop("refuse amounts beyond the maximum, and only those", [digitsArb.chain((digits) =>
    fc.record({
      digits: fc.constant(digits),
      lines: fc.array(fc.oneof(line(digits, 1_000_000_000_000_000), line(digits, 100_000_000_000)), { minLength: 1, maxLength: 3 }),
      taxRate: percent(100),
      defaultTaxable: fc.boolean(),
      nullDiscount: fc.constant(false)
    })
  )], ([inv]) => {
    const o = oracle(inv.lines, inv.taxRate, inv.defaultTaxable, inv.digits)
    const tooLarge = o.subtotal > BigInt(MAX_INVOICE_MINOR) || o.total > BigInt(MAX_INVOICE_MINOR)
    const result = compute(inv)
    expect(Result.isFailure(result)).toBe(tooLarge)
    if (Result.isFailure(result)) expect(result.failure.message).toMatch(/must not exceed/)
    else expect(result.success).toEqual(asNumbers(o))
  })

  // The tax alone can take the total past the maximum: that is refused too, not only a large subtotal.
  prop("refuse a total beyond the maximum even when the subtotal is within it", [digitsArb, fc.integer({ min: MAX_INVOICE_MINOR / 2, max: MAX_INVOICE_MINOR }), percent(100)], ([digits, price, taxRate]) => {
    const l: OracleLine = { quantity: "1", unitPrice: formatDecimal(BigInt(price), digits), discountPercent: undefined, taxable: true }
    const o = oracle([l], taxRate, true, digits)
    const result = invoiceTotals([toInput(l, false)], { taxRate: Number(taxRate), defaultTaxable: true }, digits)
    expect(Result.isFailure(result)).toBe(o.total > BigInt(MAX_INVOICE_MINOR))
  })

  // Hand-computed ties, each of which half-to-even or rounding the unrounded gross would get wrong.
  it("rounds every tie half away from zero", () => {
    const one = (l: LineInput, taxRate = 0, digits = 2) => right(invoiceTotals([l], { taxRate, defaultTaxable: true }, digits)).lines[0]
    // 1.5 × 0.05 = 0.075 → 0.08
    expect(one({ quantity: 1.5, unitPrice: 0.05 }).gross).toBe(8)
    // 0.5 × 0.05 = 0.025 → 0.03 (half to even: 0.02)
    expect(one({ quantity: 0.5, unitPrice: 0.05 }).gross).toBe(3)
    // 0.25 × 10% = 0.025 → 0.03 (half to even: 0.02)
    expect(one({ quantity: 1, unitPrice: 0.25, discountPercent: 10 })).toEqual({ gross: 25, discount: 3, total: 22, taxable: true, tax: 0 })
    // the discount comes from the rounded gross: 0.5 × 0.05 = 0.025 → gross 0.03; 50% of 0.03 = 0.015 → 0.02
    // (from the unrounded gross, 50% of 0.025 = 0.0125 → 0.01)
    expect(one({ quantity: 0.5, unitPrice: 0.05, discountPercent: 50 })).toEqual({ gross: 3, discount: 2, total: 1, taxable: true, tax: 0 })
    // tax per line: 1.50 × 5% = 0.075 → 0.08; 0.50 × 5% = 0.025 → 0.03
    expect(one({ quantity: 1, unitPrice: 1.5 }, 5).tax).toBe(8)
    expect(one({ quantity: 1, unitPrice: 0.5 }, 5).tax).toBe(3)
    // JPY: 0.5 × 5 = 2.5 → 3; BHD: 1.5 × 0.001 = 0.0015 → 0.002
    expect(one({ quantity: 0.5, unitPrice: 5 }, 0, 0).gross).toBe(3)
    expect(one({ quantity: 1.5, unitPrice: 0.001 }, 0, 3).gross).toBe(2)
    // 8.875% of 10.00 = 0.8875 → 0.89
    expect(one({ quantity: 1, unitPrice: 10 }, 8.875).tax).toBe(89)
  })

  it("an invoice of two lines, by hand", () => {
    const t = right(invoiceTotals(
      [
        { quantity: 3, unitPrice: 19.99, discountPercent: 10 }, // gross 59.97, discount 5.997 → 6.00, total 53.97
        { quantity: 2.5, unitPrice: 4.1, taxable: false } // gross 10.25, untaxed
      ],
      { taxRate: 7.25, defaultTaxable: true }, // tax 53.97 × 7.25% = 3.912825 → 3.91
      2
    ))
    expect(t).toMatchObject({ subtotal: 7022, discountAmount: 600, taxAmount: 391, total: 6813 })
  })

  it("no lines: all zero", () => {
    expect(right(invoiceTotals([], { taxRate: 10, defaultTaxable: true }, 2))).toEqual({ lines: [], subtotal: 0, discountAmount: 0, taxAmount: 0, total: 0 })
  })
})

describe("tax rate (rule 1)", () => {
  const rate = fc.integer({ min: 0, max: 100 * 10 ** PERCENT_DIGITS }).map((u) => u / 10 ** PERCENT_DIGITS)

  // The client's own rate when it overrides (and has one), else the organization's default.
  prop("is the client's rate only when it overrides", [fc.boolean(), fc.option(rate, { nil: null }), rate], ([overrideTaxRate, taxRate, orgRate]) => {
    const chosen = taxRateFor({ overrideTaxRate, taxRate }, orgRate)
    if (overrideTaxRate && taxRate !== null) expect(chosen).toBe(taxRate)
    else expect(chosen).toBe(orgRate)
  })

  it("examples", () => {
    expect(taxRateFor({ overrideTaxRate: true, taxRate: 0 }, 8.875)).toBe(0)
    expect(taxRateFor({ overrideTaxRate: false, taxRate: 5 }, 8.875)).toBe(8.875)
    expect(taxRateFor({ overrideTaxRate: true, taxRate: null }, 8.875)).toBe(8.875)
  })
})

// ---------------------------------------------------------------------------------------------------
// Dates: an independent calendar (days since 1970-01-01 from the civil date, Hinnant's algorithm).
// ---------------------------------------------------------------------------------------------------

const daysFromCivil = (date: string): number => {
  const [y0, m, d] = date.split("-").map(Number)
  const y = m <= 2 ? y0 - 1 : y0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

const moment = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms))
const day = moment.map(utcDate)

describe("invoice dates (rule 1)", () => {
  // issueDate defaults to today in UTC (whatever the local time zone), dueDate to issueDate + 30 days.
  prop("default to today (UTC) and today + 30 days", [moment], ([now]) => {
    const { dueDate, issueDate } = invoiceDates({}, now)
    expect(issueDate).toBe(`${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-${String(now.getUTCDate()).padStart(2, "0")}`)
    expect(daysFromCivil(dueDate) - daysFromCivil(issueDate)).toBe(30)
  })

  // A given issue date moves the default due date with it; given dates are kept as they are.
  prop("keep the dates given", [day, day, moment], ([issue, due, now]) => {
    expect(invoiceDates({ issueDate: issue }, now)).toEqual({ issueDate: issue, dueDate: addDays(issue, 30) })
    expect(invoiceDates({ issueDate: issue, dueDate: due }, now)).toEqual({ issueDate: issue, dueDate: due })
    expect(invoiceDates({ dueDate: due }, now)).toEqual({ issueDate: utcDate(now), dueDate: due })
  })

  // addDays and daysBetween are calendar arithmetic: they agree with the independent calendar.
  prop("addDays and daysBetween agree with the calendar", [day, day, fc.integer({ min: -1000, max: 1000 })], ([a, b, n]) => {
    const later = addDays(a, n)
    expect(later).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(daysFromCivil(later) - daysFromCivil(a)).toBe(n)
    expect(daysBetween(a, later)).toBe(n)
    expect(daysBetween(a, b)).toBe(daysFromCivil(b) - daysFromCivil(a))
  })

  it("examples", () => {
    expect(utcDate(new Date("2024-03-10T23:30:00-05:00"))).toBe("2024-03-11")
    expect(addDays("2024-01-31", 30)).toBe("2024-03-01")
    expect(addDays("2023-01-31", 30)).toBe("2023-03-02")
    expect(addDays("2024-12-15", 30)).toBe("2025-01-14")
    expect(invoiceDates({}, new Date("2024-02-10T00:00:00Z"))).toEqual({ issueDate: "2024-02-10", dueDate: "2024-03-11" })
  })
})
