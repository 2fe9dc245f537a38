import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import { ClientCreate, mergeTaxSettings, TaxSettings, TaxSettingsInput } from "./Client.js"

const settings = Arbitrary.make(TaxSettings)
const input = Arbitrary.make(TaxSettingsInput)

describe("tax settings", () => {
  it.prop("a field given wins, a field left out keeps its value", [settings, input], ([current, given]) => {
    const merged = mergeTaxSettings(current, given)
    const expected = {
      defaultTaxable: given.defaultTaxable ?? current.defaultTaxable,
      overrideTaxRate: given.overrideTaxRate ?? current.overrideTaxRate,
      taxRate: given.taxRate === undefined ? current.taxRate : given.taxRate
    }
    if (expected.overrideTaxRate && expected.taxRate === null) {
      expect(Either.isLeft(merged)).toBe(true)
    } else {
      expect(merged).toEqual(Either.right(expected))
    }
  })

  it.prop("every schema-valid ClientCreate has consistent tax settings", [Arbitrary.make(ClientCreate)], ([body]) => {
    const decoded = Schema.decodeUnknownEither(ClientCreate)(body)
    expect(Either.isRight(decoded)).toBe(true)
  })

  it("an override without a rate is refused", () => {
    expect(Either.isLeft(Schema.decodeUnknownEither(ClientCreate)({ name: "A", taxSettings: { overrideTaxRate: true } }))).toBe(true)
    expect(Either.isLeft(mergeTaxSettings({ defaultTaxable: false, overrideTaxRate: false, taxRate: null }, { overrideTaxRate: true }))).toBe(true)
  })
})
