/**
 * Invoice totals (issue 5, rule 1): exact, in integer minor units of the currency, every rounding
 * half away from zero. Pure: plain values in, plain values out.
 *
 *   line gross    = round(quantity × unitPrice)
 *   line discount = round(gross × discountPercent / 100)   (from the rounded gross)
 *   line total    = gross − discount
 *   subtotal      = Σ gross
 *   discountAmount = Σ discount
 *   taxAmount     = Σ over taxable lines of round(line total × taxRate / 100)
 *   total         = subtotal − discountAmount + taxAmount
 */
import { Result } from "effect"
import { divideRounded, fromMinorUnits, toMinorUnits, toScaled } from "../Common/Money.js"
import { Refusal } from "../Common/Refusal.js"

/** Fraction digits of a quantity and of a percentage (8.875% is a real sales-tax rate). */
export const QUANTITY_DIGITS = 4
export const PERCENT_DIGITS = 4

/**
 * The largest amount an invoice may carry, in minor units: 10^15 (ten trillion dollars), well inside
 * the integers a JSON number holds exactly (2^53 ≈ 9.007 × 10^15).
 */
export const MAX_INVOICE_MINOR = 1_000_000_000_000_000

/** A line as the client wrote it (major units, the way the API takes them). */
export interface LineInput {
  readonly quantity: number
  readonly unitPrice: number
  readonly taxable?: boolean | undefined
  readonly discountPercent?: number | null | undefined
}

/** What decides the tax of an invoice: the rate (a percentage) and whether a line without `taxable` is taxed. */
export interface TaxContext {
  readonly taxRate: number
  readonly defaultTaxable: boolean
}

/** A line's amounts, in minor units, and whether it was taxed. */
export interface LineTotals {
  readonly gross: number
  readonly discount: number
  readonly total: number
  readonly taxable: boolean
  readonly tax: number
}

export interface InvoiceTotals {
  readonly lines: ReadonlyArray<LineTotals>
  readonly subtotal: number
  readonly discountAmount: number
  readonly taxAmount: number
  readonly total: number
}

const HUNDRED_PERCENT = 100n * 10n ** BigInt(PERCENT_DIGITS)

/**
 * The tax rate of a client's invoice: the client's own rate when it overrides, else the
 * organization's default (its setting `defaultTaxRate`, 0 until `org update` sets it).
 */
export const taxRateFor = (
  client: { readonly overrideTaxRate: boolean; readonly taxRate: number | null },
  organizationDefaultRate: number
): number => client.overrideTaxRate && client.taxRate !== null ? client.taxRate : organizationDefaultRate

/**
 * The totals of an invoice's lines in a currency with `digits` fraction digits, or the refusal when they
 * cannot be (an amount beyond MAX_INVOICE_MINOR: 400 invalid_payload on lineItems). Inputs are expected valid: quantity > 0 with at most
 * QUANTITY_DIGITS decimals, unitPrice >= 0 with at most `digits` decimals, percentages 0..100 with at
 * most PERCENT_DIGITS decimals.
 */
export const invoiceTotals = (
  lines: ReadonlyArray<LineInput>,
  tax: TaxContext,
  digits: number
): Result.Result<InvoiceTotals, Refusal> => {
  const rate = toScaled(tax.taxRate, PERCENT_DIGITS)
  let subtotal = 0n
  let discountAmount = 0n
  let taxAmount = 0n
  const computed = lines.map((line) => {
    const quantity = toScaled(line.quantity, QUANTITY_DIGITS)
    const unitPrice = BigInt(toMinorUnits(line.unitPrice, digits))
    const gross = divideRounded(quantity * unitPrice, 10n ** BigInt(QUANTITY_DIGITS))
    const discount = divideRounded(gross * toScaled(line.discountPercent ?? 0, PERCENT_DIGITS), HUNDRED_PERCENT)
    const total = gross - discount
    const taxable = line.taxable ?? tax.defaultTaxable
    const lineTax = taxable ? divideRounded(total * rate, HUNDRED_PERCENT) : 0n
    subtotal += gross
    discountAmount += discount
    taxAmount += lineTax
    return { gross, discount, total, taxable, tax: lineTax }
  })
  const total = subtotal - discountAmount + taxAmount
  const max = BigInt(MAX_INVOICE_MINOR)
  if (subtotal > max || total > max) {
    return Result.fail(Refusal.invalid(["lineItems"], `the invoice's subtotal and total must not exceed ${fromMinorUnits(MAX_INVOICE_MINOR, digits)}`))
  }
  return Result.succeed({
    lines: computed.map((l) => ({
      gross: Number(l.gross),
      discount: Number(l.discount),
      total: Number(l.total),
      taxable: l.taxable,
      tax: Number(l.tax)
    })),
    subtotal: Number(subtotal),
    discountAmount: Number(discountAmount),
    taxAmount: Number(taxAmount),
    total: Number(total)
  })
}

/** The default issue date (today, UTC) and due date (issue date + 30 days). */
export const DEFAULT_PAYMENT_DAYS = 30

/** `YYYY-MM-DD` of a moment, in UTC. */
export const utcDate = (at: Date): string => at.toISOString().slice(0, 10)

/** A date plus a number of days (dates are calendar days; no time zone is involved). */
export const addDays = (date: string, days: number): string => {
  const at = new Date(`${date}T00:00:00.000Z`)
  at.setUTCDate(at.getUTCDate() + days)
  return utcDate(at)
}

/** Whole days from one date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / 86_400_000)

/** issueDate defaults to today (UTC); dueDate to issueDate + 30 days. */
export const invoiceDates = (
  input: { readonly issueDate?: string | undefined; readonly dueDate?: string | undefined },
  now: Date
): { readonly issueDate: string; readonly dueDate: string } => {
  const issueDate = input.issueDate ?? utcDate(now)
  return { issueDate, dueDate: input.dueDate ?? addDays(issueDate, DEFAULT_PAYMENT_DAYS) }
}
