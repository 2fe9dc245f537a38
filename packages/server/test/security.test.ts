import { expect, layer } from "@effect/vitest"
import { ALL_SCOPES, Api, declaredEndpoints, MAX_JSON_DEPTH } from "@bizops/domain"
import { expectError, get, makeTestServer, rawRequest, type RawResponse, ShiftedClock, TestServer } from "@bizops/testkit"
import { SqlClient } from "effect/sql"
import { Effect } from "effect"
import * as fc from "fast-check"
import { randomUUID } from "node:crypto"
import { setup, tokensFor } from "./oauthFlow.js"

// --- The endpoints of the Api, as the domain declares them ---------------------------------------

const endpoints = declaredEndpoints(Api)

/** An endpoint's path with every parameter filled in. */
const concrete = (path: string) => path.replace(/:[A-Za-z]+/g, () => randomUUID())

/** The collection paths (`/api/v1/clients`, …): one per resource of the Api. */
const collections = Array.from(new Set(endpoints.filter((e) => e.method === "GET" && !e.path.includes(":")).map((e) => e.path)))

/** Every other way of spelling a path that the bypass report tried, and a few more. */
const spellings = (path: string): ReadonlyArray<string> => {
  const resource = path.slice("/api/v1/".length)
  return [
    `/${path}`,
    path.replace("/api/", "/api//"),
    path.replace("/v1/", "/v1//"),
    path.replace("/api/v1/", "/API/V1/"),
    `/api/v1/${resource[0].toUpperCase()}${resource.slice(1)}`,
    `/api/v1/${resource.toUpperCase()}`,
    `/api/v1/%${resource.charCodeAt(0).toString(16)}${resource.slice(1)}`,
    `/api/v1/${resource.slice(0, -1)}%${resource.charCodeAt(resource.length - 1).toString(16).toUpperCase()}`,
    `${path}/`,
    path.replace("/v1/", "/v1/./"),
    path.replace("/v1/", "/v1/x/../")
  ]
}

const countClients = (organizationId: string) =>
  Effect.flatMap(TestServer, (server) =>
    server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        Effect.orDie(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM clients WHERE organization_id = ${organizationId}`),
        (rows) => rows[0]?.n ?? -1
      ))))

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

/** Every spelling of every resource, read and written, is 404 and changes nothing; the canonical one is 403. */
const expectNoBypass = (credential: Record<string, string>, organizationId: string) =>
  Effect.gen(function*() {
    for (const path of collections) {
      const canonical = yield* rawRequest("GET", path, { headers: credential })
      expect(canonical.status, path).toBe(path === "/api/v1/clients" ? 200 : 403)
      for (const spelled of spellings(path)) {
        const read = yield* rawRequest("GET", spelled, { headers: credential })
        expect(read.status, `GET ${spelled}`).toBe(404)
        expect(read.body.error.code, `GET ${spelled}`).toBe("not_found")
        const write = yield* rawRequest("POST", spelled, json({ name: "Bypass" }, { ...credential, "idempotency-key": `k-${spelled}` }))
        expect(write.status, `POST ${spelled}`).toBe(404)
      }
    }
    // The report's idempotency bypass: one key over four POSTs created four clients.
    for (let i = 0; i < 4; i++) {
      const write = yield* rawRequest("POST", "//api/v1/clients", json({ name: "Twice" }, { ...credential, "idempotency-key": "same" }))
      expect(write.status).toBe(404)
    }
    expect(yield* countClients(organizationId)).toBe(0)
  })

layer(makeTestServer())("scopes come from the matched route", (it) => {
  it.effect("every endpoint of the Api answers 403 naming its declared scope to a credential with every other scope", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      expect(endpoints.length).toBeGreaterThan(40)
      for (const endpoint of endpoints) {
        expect(endpoint.scope, `${endpoint.method} ${endpoint.path}`).toBeDefined()
        const others = yield* server.organization(ALL_SCOPES.filter((s) => s !== endpoint.scope))
        const path = concrete(endpoint.path)
        const send = (key: string) =>
          rawRequest(endpoint.method, path, endpoint.method === "GET" || endpoint.method === "DELETE" ? { headers: { "x-api-key": key } } : json({}, { "x-api-key": key }))
        const refused = yield* send(others.apiKey)
        expect(refused.status, `${endpoint.method} ${endpoint.path}`).toBe(403)
        expect(refused.body.error.message).toBe(`This credential lacks the scope ${endpoint.scope}`)
        // The declared scope alone is enough to get past the check.
        const only = yield* server.organization([endpoint.scope ?? "clients:read"])
        const passed = yield* send(only.apiKey)
        expect(passed.status, `${endpoint.method} ${endpoint.path}`).not.toBe(403)
        expect(passed.status, `${endpoint.method} ${endpoint.path}`).toBeLessThan(500)
      }
    }))

  it.effect("an API key holding only clients:read cannot reach another resource, or write, by spelling the path differently", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization(["clients:read"])
      yield* expectNoBypass({ "x-api-key": org.apiKey }, org.organizationId)
      // Sent as a bearer value too.
      yield* expectNoBypass({ authorization: `Bearer ${org.apiKey}` }, org.organizationId)
    }))

  it.effect("an OAuth token granted only read:clients cannot either", () =>
    Effect.gen(function*() {
      const s = yield* setup({ scope: "read:clients", appScopes: ["read:clients"] })
      const tokens = yield* tokensFor(s)
      expect(tokens.scope).toBe("read:clients")
      yield* expectNoBypass({ authorization: `Bearer ${tokens.access_token}` }, s.org.organizationId)
    }))

  it.effect("the canonical spelling keeps working, with a query string", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization(["clients:read", "clients:write"])
      const created = yield* rawRequest("POST", "/api/v1/clients", json({ name: "Canonical" }, { "x-api-key": org.apiKey, "idempotency-key": "c-1" }))
      expect(created.status).toBe(201)
      const replayed = yield* rawRequest("POST", "/api/v1/clients", json({ name: "Canonical" }, { "x-api-key": org.apiKey, "idempotency-key": "c-1" }))
      expect(replayed.status).toBe(201)
      expect(replayed.headers["idempotent-replayed"]).toBe("true")
      const listed = yield* rawRequest("GET", "/api/v1/clients?page=1&pageSize=5", { headers: { "x-api-key": org.apiKey } })
      expect(listed.status).toBe(200)
      expect(listed.body.pagination.total).toBe(1)
      // A percent-escape that is needed (not of a plain character) is still the same route: a malformed id.
      const escaped = yield* rawRequest("GET", "/api/v1/clients/a%20b", { headers: { "x-api-key": org.apiKey } })
      expect(escaped.status).toBe(404)
    }))
})

// --- Bodies that nest too deeply ------------------------------------------------------------------

const nested = (depth: number, kind: "array" | "object") =>
  kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

/** The body-taking endpoints of the Api. */
const writes = endpoints.filter((e) => e.method === "POST" || e.method === "PATCH")

layer(makeTestServer())("request bodies of any shape", (it) => {
  it.effect("arrays ~2,100 deep or objects 5,000+ deep in a field are 400 invalid_request, not 500", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (const [depth, kind] of [[2100, "array"], [5000, "object"], [20_000, "object"], [MAX_JSON_DEPTH, "array"]] as const) {
        const res = yield* rawRequest("POST", "/api/v1/clients", {
          headers: { "x-api-key": org.apiKey, "content-type": "application/json" },
          body: `{"name":"Deep","notes":${nested(depth, kind)}}`
        })
        expect(res.status, `${kind} ${depth}`).toBe(400)
        expect(res.body.error.code).toBe("invalid_request")
        // The body's own object is one level: a field at MAX_JSON_DEPTH levels is past the limit.
        expect(res.body.error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`)
      }
      // Just within the limit, the body reaches validation, which names the field.
      const within = yield* rawRequest("POST", "/api/v1/clients", {
        headers: { "x-api-key": org.apiKey, "content-type": "application/json" },
        body: `{"name":"Deep","notes":${nested(MAX_JSON_DEPTH - 1, "array")}}`
      })
      expect(within.status).toBe(400)
      expect(within.body.error.details.issues[0].path).toEqual(["notes"])
      expect(yield* countClients(org.organizationId)).toBe(0)
    }))

  it.effect("random JSON of any depth and size up to the body limit never gets a 5xx", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const headers = { "x-api-key": org.apiKey, "content-type": "application/json" }
      const deep = fc.tuple(fc.integer({ min: 1, max: 400_000 }), fc.constantFrom("array" as const, "object" as const))
        .map(([depth, kind]) => nested(depth, kind))
      const body = fc.oneof(
        fc.jsonValue({ maxDepth: 80 }).map((v) => JSON.stringify(v)),
        deep,
        deep.map((value) => `{"name":"N","notes":${value}}`),
        fc.tuple(fc.jsonValue({ maxDepth: 10 }), fc.integer({ min: 1, max: 200 })).map(([v, n]) =>
          `{"name":${JSON.stringify("x".repeat(n))},"extra":${JSON.stringify(v)}}`
        ),
        fc.string({ maxLength: 200 })
      ).filter((text) => Buffer.byteLength(text) <= 1024 * 1024)
      const samples = fc.sample(fc.tuple(fc.constantFrom(...writes), body), { numRuns: 120, seed: 42 })
      for (const [endpoint, text] of samples) {
        const res: RawResponse = yield* rawRequest(endpoint.method, concrete(endpoint.path), { headers, body: text })
        expect(res.status, `${endpoint.method} ${endpoint.path} ${text.slice(0, 80)}`).toBeLessThan(500)
      }
    }))
})

// --- Chunked bodies over the limit ----------------------------------------------------------------

layer(makeTestServer())("chunked bodies", (it) => {
  it.effect("a chunked body over 1 MiB (no Content-Length) is 413 payload_too_large with Connection: close", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const chunk = Buffer.alloc(64 * 1024, "a")
      const chunks = [Buffer.from("{\"name\":\"Big\",\"notes\":\""), ...Array.from({ length: 40 }, () => chunk), Buffer.from("\"}")]
      const res = yield* rawRequest("POST", "/api/v1/clients", {
        headers: { "x-api-key": org.apiKey, "content-type": "application/json", "x-request-id": "chunked-1" },
        chunks
      })
      expect(res.status).toBe(413)
      expect(res.headers["connection"]).toBe("close")
      expect(res.body).toEqual({
        error: { code: "payload_too_large", message: "The request body is larger than 1048576 bytes", requestId: "chunked-1" }
      })
      expect(yield* countClients(org.organizationId)).toBe(0)
      // The server is fine afterwards, and a chunked body within the limit is served.
      const small = yield* rawRequest("POST", "/api/v1/clients", {
        headers: { "x-api-key": org.apiKey, "content-type": "application/json" },
        chunks: ["{\"name\":", "\"Small\"}"]
      })
      expect(small.status).toBe(201)
    }))
})

// --- The limit on failed authentication -----------------------------------------------------------

const BAD_KEY = `bok_${"x".repeat(43)}`

layer(makeTestServer({ clock: new ShiftedClock() }))("failed authentication from one address", (it) => {
  it.effect("after 100 failures a bad credential gets 429, but a valid key from the same address is served", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization(["clients:read"])
      for (let i = 0; i < 100; i++) expect((yield* get("/api/v1/clients", { key: BAD_KEY })).status).toBe(401)
      expectError(yield* get("/api/v1/clients", { key: BAD_KEY }), 429, "rate_limited")
      expectError(yield* get("/api/v1/clients"), 429, "rate_limited")
      const valid = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(valid.status).toBe(200)
      // It still counts against its own key's limit.
      expect(valid.headers.get("x-ratelimit-remaining")).toBe("999")
      const bearer = yield* get("/api/v1/clients", { bearer: org.apiKey })
      expect(bearer.status).toBe(200)
      expect(bearer.headers.get("x-ratelimit-remaining")).toBe("998")
    }))
})

layer(makeTestServer({ clock: new ShiftedClock(), config: { trustedProxies: 1 } }))("failed authentication behind a proxy", (it) => {
  it.effect("the address is the one the proxy appended: what the client writes to its left changes nothing", () =>
    Effect.gen(function*() {
      const from = (spoofed: string, seen: string) => ({ "x-api-key": BAD_KEY, "x-forwarded-for": `${spoofed}, ${seen}` })
      for (let i = 0; i < 100; i++) {
        const res = yield* rawRequest("GET", "/api/v1/clients", { headers: from(`203.0.113.${i}`, "198.51.100.7") })
        expect(res.status).toBe(401)
      }
      const spoofing = yield* rawRequest("GET", "/api/v1/clients", { headers: from("192.0.2.1", "198.51.100.7") })
      expect(spoofing.status).toBe(429)
      // Another client behind the same proxy is not locked out.
      const neighbour = yield* rawRequest("GET", "/api/v1/clients", { headers: from("192.0.2.1", "198.51.100.8") })
      expect(neighbour.status).toBe(401)
    }))
})
