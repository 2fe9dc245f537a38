/**
 * The money of a sale (issue 15; the contract's "Sales (read-only)"): exact, in integer minor units of the
 * currency, every rounding half away from zero. Pure: plain values in, plain values out.
 *
 *   gross          = Σ round(quantity × unitPrice)
 *   discountAmount = round(gross × discountPercent / 100)
 *   taxInclusive:    total = gross − discountAmount
 *                    taxAmount = total − round(total / (1 + taxRate / 100))
 *   otherwise:       taxAmount = round((gross − discountAmount) × taxRate / 100)
 *                    total = gross − discountAmount + taxAmount
 *   subtotal       = total − taxAmount   (revenue before tax)
 *
 * Unlike an invoice, a sale's discount and tax apply to the whole sale, not line by line: the point of
 * sale rings one discount and one rate.
 */
import { Result } from "effect"
import { divideRounded, fromMinorUnits, toMinorUnits, toScaled } from "../Common/Money.js"
import { Refusal } from "../Common/Refusal.js"
import { MAX_INVOICE_MINOR, PERCENT_DIGITS, QUANTITY_DIGITS } from "../Invoices/Totals.js"

/** The largest amount a sale may carry, in minor units: the invoices' bound (well inside exact JSON numbers). */
export const MAX_SALE_MINOR = MAX_INVOICE_MINOR

/** A line of a sale as the record gives it (major units). */
export interface SaleLineInput {
  readonly quantity: number
  readonly unitPrice: number
}

/** What the money of a sale is computed from: its lines, discount and tax (percentages, 0..100). */
export interface SaleMoneyInput {
  readonly lineItems: ReadonlyArray<SaleLineInput>
  readonly discountPercent?: number | null | undefined
  readonly taxRate: number
  readonly taxInclusive: boolean
}

/** A sale's money, in minor units. */
export interface SaleMoney {
  readonly gross: number
  readonly discountAmount: number
  readonly subtotal: number
  readonly taxAmount: number
  readonly total: number
}

const HUNDRED_PERCENT = 100n * 10n ** BigInt(PERCENT_DIGITS)

/**
 * The money of a sale in a currency with `digits` fraction digits, or the refusal when it cannot be carried
 * (gross or total beyond MAX_SALE_MINOR: invalid_payload on lineItems). Inputs are expected valid (the
 * import schema): quantity > 0 with at most QUANTITY_DIGITS decimals, unitPrice >= 0 with at most `digits`
 * decimals, percentages 0..100 with at most PERCENT_DIGITS decimals. Computed in bigint, so no
 * intermediate product loses a digit.
 */
export const saleMoney = (record: SaleMoneyInput, digits: number): Result.Result<SaleMoney, Refusal> => {
  const gross = record.lineItems.reduce(
    (sum, line) =>
      sum + divideRounded(toScaled(line.quantity, QUANTITY_DIGITS) * BigInt(toMinorUnits(line.unitPrice, digits)), 10n ** BigInt(QUANTITY_DIGITS)),
    0n
  )
  const discountAmount = divideRounded(gross * toScaled(record.discountPercent ?? 0, PERCENT_DIGITS), HUNDRED_PERCENT)
  const net = gross - discountAmount
  const rate = toScaled(record.taxRate, PERCENT_DIGITS)
  let total: bigint
  let taxAmount: bigint
  if (record.taxInclusive) {
    total = net
    // total / (1 + rate/100) = total × 100 / (100 + rate), with the rate scaled by 10^PERCENT_DIGITS.
    taxAmount = total - divideRounded(total * HUNDRED_PERCENT, HUNDRED_PERCENT + rate)
  } else {
    taxAmount = divideRounded(net * rate, HUNDRED_PERCENT)
    total = net + taxAmount
  }
  const max = BigInt(MAX_SALE_MINOR)
  if (gross > max || total > max) {
    return Result.fail(Refusal.invalid(["lineItems"], `the sale's gross and total must not exceed ${fromMinorUnits(MAX_SALE_MINOR, digits)}`))
  }
  return Result.succeed({
    gross: Number(gross),
    discountAmount: Number(discountAmount),
    subtotal: Number(total - taxAmount),
    taxAmount: Number(taxAmount),
    total: Number(total)
  })
}
