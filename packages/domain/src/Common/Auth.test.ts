import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { Api } from "../Api.js"
import { ALL_SCOPES, declaredEndpoints, scopeRefusal } from "./Auth.js"

describe("scopes", () => {
  it("every endpoint of the Api declares its scope: <path segment>:read for GET, :write for the others", () => {
    const endpoints = declaredEndpoints(Api)
    expect(endpoints.length).toBeGreaterThan(40)
    for (const { method, path, scope } of endpoints) {
      const segment = path.split("/")[3]
      const resource = segment === "webhook-events" ? "webhooks" : segment
      expect(scope, `${method} ${path}`).toBe(`${resource}:${method === "GET" ? "read" : "write"}`)
      expect(ALL_SCOPES, `${method} ${path}`).toContain(scope)
    }
  })

  prop(
    "a request passes the scope check exactly when the endpoint declares a scope that the credential holds",
    [fc.option(fc.constantFrom(...ALL_SCOPES)), fc.uniqueArray(fc.constantFrom(...ALL_SCOPES))],
    ([declared, granted]) => {
      const refusal = scopeRefusal(declared ?? undefined, new Set(granted))
      expect(refusal === undefined).toBe(declared !== null && granted.includes(declared))
      if (declared !== null && refusal !== undefined) expect(refusal).toContain(declared)
    }
  )

  it("read-only resources have no write scope, inquiries no read scope", () => {
    expect(ALL_SCOPES).toContain("clients:write")
    expect(ALL_SCOPES).not.toContain("sales:write")
    expect(ALL_SCOPES).not.toContain("inquiries:read")
    expect(ALL_SCOPES).toContain("inquiries:write")
  })
})
