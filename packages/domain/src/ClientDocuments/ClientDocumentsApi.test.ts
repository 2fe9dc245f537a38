import { describe, expect, it } from "@effect/vitest"
import { HttpApi, OpenApi } from "effect/http-api"
import { declaredEndpoints } from "../Common/Auth.js"
import { ClientDocumentsApi } from "./ClientDocumentsApi.js"

describe("ClientDocumentsApi", () => {
  const api = HttpApi.make("client-documents").add(ClientDocumentsApi)

  it("is read-only: list and get, with client-documents:read", () => {
    expect(declaredEndpoints(api)).toEqual([
      { method: "GET", path: "/api/v1/client-documents", scope: "client-documents:read" },
      { method: "GET", path: "/api/v1/client-documents/:id", scope: "client-documents:read" }
    ])
  })

  it("is described in the OpenAPI document", () => {
    const spec = OpenApi.fromApi(api)
    expect(Object.keys(spec.paths).sort()).toEqual(["/api/v1/client-documents", "/api/v1/client-documents/{id}"])
    expect(Object.keys(spec.components.schemas)).toEqual(expect.arrayContaining(["ClientDocumentEncoded", "ClientDocumentList"]))
  })
})
