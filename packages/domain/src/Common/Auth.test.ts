import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { ALL_SCOPES, RESOURCES, requiredScope } from "./Auth.js"

const resource = fc.constantFrom(...RESOURCES)
const id = fc.uuid()

describe("scopes", () => {
  it.prop("GET needs <resource>:read, every write method <resource>:write", [resource, fc.option(id), fc.constantFrom("GET", "POST", "PATCH", "DELETE")], ([r, maybeId, method]) => {
    const path = maybeId === null ? `/api/v1/${r}` : `/api/v1/${r}/${maybeId}`
    expect(requiredScope(method, path)).toBe(`${r}:${method === "GET" ? "read" : "write"}`)
  })

  it("paths outside /api/v1 need no scope", () => {
    expect(requiredScope("GET", "/docs")).toBeUndefined()
  })

  it("read-only resources have no write scope, inquiries no read scope", () => {
    expect(ALL_SCOPES).toContain("clients:write")
    expect(ALL_SCOPES).not.toContain("sales:write")
    expect(ALL_SCOPES).not.toContain("inquiries:read")
    expect(ALL_SCOPES).toContain("inquiries:write")
  })
})
