import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { fractionDigits, fromMinorUnits, roundHalfAwayFromZero, toMinorUnits } from "./Money.js"

const minor = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 })

describe("money", () => {
  it.prop("minor → major → minor is exact", [minor, fc.constantFrom(0, 2, 3)], ([m, digits]) => {
    expect(toMinorUnits(fromMinorUnits(m, digits), digits)).toBe(m)
  })

  it.prop("a major amount never has more fraction digits than the currency allows", [minor], ([m]) => {
    const major = fromMinorUnits(m, 2)
    const text = String(major)
    const fraction = text.includes(".") ? text.split(".")[1].length : 0
    expect(fraction).toBeLessThanOrEqual(2)
  })

  it.prop("rounding is half away from zero, symmetric, and within half a unit", [fc.double({ min: -1e12, max: 1e12, noNaN: true })], ([x]) => {
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
