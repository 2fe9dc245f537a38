import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { divideRounded, fractionDigits, fromMinorUnits, hasAtMostDigits, roundHalfAwayFromZero, toMinorUnits, toScaled } from "./Money.js"

const minor = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 })

describe("money", () => {
  prop("minor → major → minor is exact", [minor, fc.constantFrom(0, 2, 3)], ([m, digits]) => {
    expect(toMinorUnits(fromMinorUnits(m, digits), digits)).toBe(m)
  })

  prop("a major amount never has more fraction digits than the currency allows", [minor], ([m]) => {
    const major = fromMinorUnits(m, 2)
    const text = String(major)
    const fraction = text.includes(".") ? text.split(".")[1].length : 0
    expect(fraction).toBeLessThanOrEqual(2)
  })

  prop("rounding is half away from zero, symmetric, and within half a unit", [fc.double({ min: -1e12, max: 1e12, noNaN: true })], ([x]) => {
    const r = roundHalfAwayFromZero(x)
    expect(Number.isInteger(r)).toBe(true)
    expect(Math.abs(r - x)).toBeLessThanOrEqual(0.5)
    expect(roundHalfAwayFromZero(-x)).toBe(r === 0 ? 0 : -r)
    expect(Object.is(r, -0)).toBe(false)
  })

  it("halves go away from zero", () => {
    expect(roundHalfAwayFromZero(2.5)).toBe(3)
    expect(roundHalfAwayFromZero(-2.5)).toBe(-3)
    expect(toMinorUnits(0.125, 2)).toBe(13)
    expect(toMinorUnits(-0.125, 2)).toBe(-13)
  })

  it("fraction digits come from Intl", () => {
    expect(fractionDigits("USD")).toBe(2)
    expect(fractionDigits("JPY")).toBe(0)
    expect(fractionDigits("BHD")).toBe(3)
  })
})

/** Integers of any size, well past 2^53, to show divideRounded never goes through a float. */
const big = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })
const divisor = fc.oneof(fc.bigInt({ min: 1n, max: 20n }), fc.bigInt({ min: 1n, max: 10n ** 20n }))

const abs = (n: bigint): bigint => (n < 0n ? -n : n)

/** `m / 10^digits` written out as a decimal, the way a client would type it ("-0.05", "12", "1.0005"). */
const decimal = (m: bigint, digits: number): string => {
  const sign = m < 0n ? "-" : ""
  const text = abs(m).toString().padStart(digits + 1, "0")
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`
}

describe("divideRounded", () => {
  // The definition: q is the integer nearest n/d (|n/d − q| <= 1/2, i.e. |n − q·d|·2 <= d), and on a
  // tie (n/d exactly halfway) q is the one farther from zero.
  prop("is the nearest integer, ties away from zero", [big, divisor], ([n, d]) => {
    const q = divideRounded(n, d)
    const twiceError = abs(n - q * d) * 2n
    expect(twiceError <= d).toBe(true)
    if (twiceError === d) expect(abs(q * d) > abs(n)).toBe(true)
  })

  // Half away from zero is symmetric: rounding −n is −(rounding n), never a step towards +∞.
  prop("is odd: divideRounded(−n, d) = −divideRounded(n, d)", [big, divisor], ([n, d]) => {
    expect(divideRounded(-n, d)).toBe(-divideRounded(n, d))
  })

  // An exact quotient is returned unchanged.
  prop("is exact on multiples", [big, divisor], ([q, d]) => {
    expect(divideRounded(q * d, d)).toBe(q)
  })

  it("pins the ties and the refusal of a non-positive divisor", () => {
    expect(divideRounded(5n, 2n)).toBe(3n)
    expect(divideRounded(-5n, 2n)).toBe(-3n)
    expect(divideRounded(1n, 2n)).toBe(1n)
    expect(divideRounded(-1n, 2n)).toBe(-1n)
    expect(divideRounded(4n, 3n)).toBe(1n)
    expect(divideRounded(-4n, 3n)).toBe(-1n)
    expect(divideRounded(5n, 3n)).toBe(2n)
    expect(divideRounded(25n, 10n)).toBe(3n) // half to even would give 2
    expect(divideRounded(0n, 7n)).toBe(0n)
    expect(() => divideRounded(1n, 0n)).toThrow(RangeError)
    expect(() => divideRounded(1n, -2n)).toThrow(RangeError)
  })
})

describe("toScaled and hasAtMostDigits", () => {
  // Any decimal with at most `digits` fraction digits (up to 10^15 scaled, inside a double's exact
  // range) parses to a number whose scaled value is exactly the integer it was written from.
  prop("toScaled reads back the decimal a number was written as", [fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 6 })], ([m, digits]) => {
    const value = Number(decimal(m, digits))
    expect(toScaled(value, digits)).toBe(m)
    expect(hasAtMostDigits(value, digits)).toBe(true)
  })

  // A decimal whose last written digit is not 0 has exactly that many digits: one fewer is refused.
  prop("hasAtMostDigits refuses one digit too many", [fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 1, max: 6 })], ([m, digits]) => {
    fc.pre(m % 10n !== 0n)
    expect(hasAtMostDigits(Number(decimal(m, digits)), digits - 1)).toBe(false)
  })

  it("pins a few values", () => {
    expect(toScaled(1.0005, 4)).toBe(10005n)
    expect(toScaled(8.875, 4)).toBe(88750n)
    expect(toScaled(-0.05, 2)).toBe(-5n)
    expect(toScaled(12, 0)).toBe(12n)
    expect(toScaled(0.1 + 0.2, 2)).toBe(30n)
    expect(hasAtMostDigits(0.1 + 0.2, 2)).toBe(false)
    expect(hasAtMostDigits(12.34, 2)).toBe(true)
    expect(hasAtMostDigits(Number.NaN, 2)).toBe(false)
    expect(hasAtMostDigits(Number.POSITIVE_INFINITY, 2)).toBe(false)
  })
})
