/**
 * Money is exact: amounts are computed and stored in integer minor units of the currency, rounded
 * half away from zero, and sent as JSON numbers in major units.
 */

const digitsCache = new Map<string, number>()

/**
 * Fraction digits of a currency, as `Intl.NumberFormat` reports them (2 for USD, 0 for JPY). Remembered
 * per currency: Intl is slow to ask (a hot path of every invoice and payment), and the answer never changes.
 */
export const fractionDigits = (currency: string): number => {
  let digits = digitsCache.get(currency)
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
    digitsCache.set(currency, digits)
  }
  return digits
}

/** Rounds half away from zero to a whole number (Math.round rounds -2.5 to -2; this gives -3). */
export const roundHalfAwayFromZero = (x: number): number => {
  const r = Math.sign(x) * Math.round(Math.abs(x))
  return r === 0 ? 0 : r // never -0: JSON and equality should not see a sign on zero
}

/** Major units (12.34) to minor units (1234), exactly for any amount with at most `digits` decimals. */
export const toMinorUnits = (amount: number, digits = 2): number => {
  const scaled = Number((amount * 10 ** digits).toFixed(6))
  return roundHalfAwayFromZero(scaled)
}

/** Minor units (1234) to major units (12.34). */
export const fromMinorUnits = (minor: number, digits = 2): number => Number((minor / 10 ** digits).toFixed(digits))

/**
 * n / d rounded half away from zero, exactly (integers of any size). d must be positive.
 * 5 / 2 = 3, -5 / 2 = -3, 4 / 3 = 1.
 */
export const divideRounded = (n: bigint, d: bigint): bigint => {
  if (d <= 0n) throw new RangeError("divideRounded: the divisor must be positive")
  const magnitude = ((n < 0n ? -n : n) * 2n + d) / (2n * d)
  return n < 0n ? -magnitude : magnitude
}

/**
 * A decimal number with at most `digits` fraction digits as the integer `value × 10^digits`, exactly
 * (1.0005 with 4 digits is 10005n). `toFixed` picks the nearest such integer, which is the decimal
 * the number was written as.
 */
export const toScaled = (value: number, digits: number): bigint => {
  const fixed = value.toFixed(digits)
  return BigInt(digits === 0 ? fixed : fixed.replace(".", ""))
}

/** Whether a number has at most `digits` fraction digits (12.34 has 2; 0.1 + 0.2 has more). */
export const hasAtMostDigits = (value: number, digits: number): boolean =>
  Number.isFinite(value) && Number(value.toFixed(digits)) === value
