import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { ClientCreate, mergeTaxSettings, TaxSettings, TaxSettingsInput } from "./Client.js"

describe("tax settings", () => {
  it.prop("a field given wins, a field left out keeps its value", [TaxSettings, TaxSettingsInput], ([current, given]) => {
    const merged = mergeTaxSettings(current, given)
    const expected = {
      defaultTaxable: given.defaultTaxable ?? current.defaultTaxable,
      overrideTaxRate: given.overrideTaxRate ?? current.overrideTaxRate,
      taxRate: given.taxRate === undefined ? current.taxRate : given.taxRate
    }
    if (expected.overrideTaxRate && expected.taxRate === null) {
      expect(Result.isFailure(merged)).toBe(true)
    } else {
      expect(merged).toEqual(Result.succeed(expected))
    }
  })

  it.prop("every schema-valid ClientCreate has consistent tax settings", [ClientCreate], ([body]) => {
    const decoded = Schema.decodeUnknownResult(ClientCreate)(body)
    expect(Result.isSuccess(decoded)).toBe(true)
  })

  it("an override without a rate is refused", () => {
    expect(Result.isFailure(Schema.decodeUnknownResult(ClientCreate)({ name: "A", taxSettings: { overrideTaxRate: true } }))).toBe(true)
    expect(Result.isFailure(mergeTaxSettings({ defaultTaxable: false, overrideTaxRate: false, taxRate: null }, { overrideTaxRate: true }))).toBe(true)
  })
})
