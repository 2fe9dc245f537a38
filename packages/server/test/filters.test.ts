import { describe, expect, it } from "@effect/vitest"
import { byFilters } from "@bizops/server/Sql/Lists"

/** `byFilters` turns a decoded list query into the conditions of the list's statement. */
describe("list filters", () => {
  it("a filter is its column's equality, updatedSince a lower bound, and the page is not a filter", () => {
    const since = new Date("2026-11-01T00:00:00.000Z")
    expect(byFilters({ page: 2, pageSize: 10, clientId: "c1", supersedesInvoice: undefined, updatedSince: since, versionStatus: "issued" }))
      .toEqual([["client_id = ?", "c1"], ["updated_at >= ?", since], ["version_status = ?", "issued"]])
  })

  it("no filters given, no conditions", () => {
    expect(byFilters({ page: 1 })).toEqual([])
    expect(byFilters({})).toEqual([])
  })

  it("a name that is not a plain camelCase field name is refused (it would reach the SQL text)", () => {
    expect(() => byFilters({ "id = id OR true; --": "x" })).toThrow(/not a filter name/)
    expect(() => byFilters({ client_id: "x" })).toThrow(/not a filter name/)
  })
})
