import { expect, layer } from "@effect/vitest"
import { Api } from "@bizops/domain"
import { expectError, get, NIL, post, request, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

layer(TestServerLive)("http", (it) => {
  it.effect("unknown routes are 404 with the envelope, inside and outside /api/v1", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      expectError(yield* get("/api/v1/nothing-here", { key: org.apiKey }), 404, "not_found")
      expectError(yield* get("/nope"), 404, "not_found")
      expectError(yield* get(`/api/v1/clients/${NIL}/extra`, { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("a known path with another method is 405 with Allow", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const put = yield* request("PUT", "/api/v1/clients", { key: org.apiKey, json: {} })
      expectError(put, 405, "method_not_allowed")
      expect(put.headers.get("allow")).toBe("GET, POST")
      const item = yield* request("POST", `/api/v1/contacts/${NIL}`, { key: org.apiKey, json: {} })
      expectError(item, 405, "method_not_allowed")
      expect(item.headers.get("allow")).toBe("GET, PATCH, DELETE")
    }))

  it.effect("a body over 1 MiB is 413 and creates nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const big = JSON.stringify({ name: "A", notes: "x".repeat(1024 * 1024 + 10) })
      expectError(yield* request("POST", "/api/v1/clients", { key: org.apiKey, raw: big, headers: { "content-type": "application/json" } }), 413, "payload_too_large")
      expect((yield* get("/api/v1/clients", { key: org.apiKey })).body.pagination.total).toBe(0)
    }))

  it.effect("X-Request-Id: a valid client id is kept, anything else is replaced", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const ok = yield* get("/api/v1/clients", { key: org.apiKey, headers: { "x-request-id": "trace-123/abc" } })
      expect(ok.headers.get("x-request-id")).toBe("trace-123/abc")
      const failed = yield* get("/api/v1/clients", { headers: { "x-request-id": "trace-456" } })
      expectError(failed, 401, "unauthorized")
      expect(failed.body.error.requestId).toBe("trace-456")
      for (const bad of ["has space", "x".repeat(201), "é"]) {
        const res = yield* get("/api/v1/clients", { key: org.apiKey, headers: { "x-request-id": encodeURI(bad) === bad ? bad : "has space" } })
        expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/)
      }
      const generated = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/)
    }))

  it.effect("the OpenAPI document and the docs page need no credentials", () =>
    Effect.gen(function*() {
      const spec = yield* get("/api/v1/openapi.json")
      expect(spec.status).toBe(200)
      expect(spec.body.openapi).toMatch(/^3\./)
      expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining(["/api/v1/clients", "/api/v1/clients/{id}", "/api/v1/contacts", "/api/v1/projects/{id}"]))
      expect(spec.body.components.securitySchemes).toHaveProperty("apiKey")
      expect(spec.text).not.toContain("HttpApiDecodeError")
      // The outbound events, from the webhooks package's catalog, with every $ref resolvable.
      expect(Object.keys(spec.body.webhooks)).toEqual(expect.arrayContaining(["client_created", "contact_updated", "invoice_refunded", "sale_voided"]))
      const refs = [...new Set<string>((spec.text.match(/"\$ref":"[^"]+"/g) ?? []).map((r) => r.slice(8, -1)))]
      const resolve = (ref: string) => ref.replace("#/", "").split("/").reduce<any>((node, key) => node?.[key], spec.body)
      expect(refs.filter((ref) => resolve(ref) === undefined)).toEqual([])
      const docs = yield* get("/docs")
      expect(docs.status).toBe(200)
      expect(docs.headers.get("content-type")).toContain("text/html")
    }))

  it.effect("another TypeScript service derives a typed client from the domain package", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const client = yield* HttpApiClient.make(Api, {
        baseUrl: server.baseUrl,
        transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", org.apiKey))
      })
      const created = yield* client.clients.create({ payload: { name: "Typed Co", status: "qualified" } })
      expect(created.status).toBe("qualified")
      const fetched = yield* client.clients.get({ params: { id: created.id } })
      expect(fetched.name).toBe("Typed Co")
      expect(fetched.createdAt).toBeInstanceOf(Date)
      const leads = yield* client.clients.list({ query: { status: "qualified" } })
      expect(leads.data.map((c) => c.id)).toEqual([created.id])
      const missing = yield* Effect.flip(client.clients.get({ params: { id: created.id.replace(/^.{8}/, "00000000") as typeof created.id } }))
      expect(missing._tag).toBe("NotFound")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("a body that is not JSON is 400, with or without a content type", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      expectError(yield* request("POST", "/api/v1/clients", { key: org.apiKey, raw: "not json" }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/clients", { key: org.apiKey, raw: "<xml/>", headers: { "content-type": "application/xml" } }), 400, "invalid_request")
      expectError(yield* post("/api/v1/clients", "a string", { key: org.apiKey }), 400, "invalid_request")
      expectError(yield* post("/api/v1/clients", null, { key: org.apiKey }), 400, "invalid_request")
    }))
})
