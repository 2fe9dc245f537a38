import { describe, expect, it, layer } from "@effect/vitest"
import { ClientCreate, strict } from "@bizops/domain"
import { Arbitraries, del, expectError, get, NIL, patch, post, request, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect, Schema } from "effect"

layer(TestServerLive)("clients", (it) => {
  it.effect("create, get, update, list and delete a client", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const created = yield* post("/api/v1/clients", { name: "Ada Studio" }, { key: org.apiKey })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({
        name: "Ada Studio",
        status: "active",
        businessId: org.businessId,
        notes: null,
        taxSettings: { defaultTaxable: false, overrideTaxRate: false, taxRate: null },
        recurringBilling: null,
        sourceSubmissionId: null
      })
      expect(created.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      const id = created.body.id
      const fetched = yield* get(`/api/v1/clients/${id}`, { bearer: org.apiKey })
      expect(fetched.status).toBe(200)
      expect(fetched.body).toEqual(created.body)

      const updated = yield* patch(`/api/v1/clients/${id}`, { status: "inactive", taxSettings: { overrideTaxRate: true, taxRate: 8.875 } }, { key: org.apiKey })
      expect(updated.status).toBe(200)
      expect(updated.body.status).toBe("inactive")
      expect(updated.body.taxSettings).toEqual({ defaultTaxable: false, overrideTaxRate: true, taxRate: 8.875 })
      const merged = yield* patch(`/api/v1/clients/${id}`, { taxSettings: { defaultTaxable: true } }, { key: org.apiKey })
      expect(merged.body.taxSettings).toEqual({ defaultTaxable: true, overrideTaxRate: true, taxRate: 8.875 })

      const list = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(list.body.data.map((c: any) => c.id)).toEqual([id])
      expect(list.body.pagination).toEqual({ page: 1, pageSize: 25, total: 1, totalPages: 1, hasMore: false })

      const removed = yield* del(`/api/v1/clients/${id}`, { key: org.apiKey })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/clients/${id}`, { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("leads are clients with status new, contacted or qualified", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (const status of ["new", "contacted", "qualified", "active", "new"]) {
        yield* post("/api/v1/clients", { name: `C ${status}`, status }, { key: org.apiKey })
      }
      const leads = yield* get("/api/v1/clients?status=new", { key: org.apiKey })
      expect(leads.body.data).toHaveLength(2)
      expect(leads.body.data.every((c: any) => c.status === "new")).toBe(true)
      expectError(yield* get("/api/v1/clients?status=lead", { key: org.apiKey }), 400, "invalid_request", "invalid_payload")
    }))

  it.effect("400 on every bound, unknown and read-only fields, and bad JSON; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const bad: Array<[unknown, string]> = [
        [{}, "name"],
        [{ name: "" }, "name"],
        [{ name: "x".repeat(201) }, "name"],
        [{ name: "A", status: "lead" }, "status"],
        [{ name: "A", notes: "x".repeat(5001) }, "notes"],
        [{ name: "A", taxSettings: { taxRate: 101 } }, "taxSettings"],
        [{ name: "A", taxSettings: { taxRate: -1 } }, "taxSettings"],
        [{ name: "A", taxSettings: { overrideTaxRate: true } }, "taxSettings"],
        [{ name: "A", nmae: "typo" }, "nmae"],
        [{ name: "A", id: NIL }, "id"],
        [{ name: "A", createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ name: "A", recurringBilling: null }, "recurringBilling"],
        [{ name: 42 }, "name"],
        [{ name: "A\u0000B" }, "name"],
        [[], ""]
      ]
      for (const [body, field] of bad) {
        const res = yield* post("/api/v1/clients", body, { key: org.apiKey })
        expectError(res, 400, "invalid_request")
        if (field !== "" && field !== "taxSettings") {
          expect(res.body.error.details.code).toBe("invalid_payload")
          expect(res.body.error.details.issues[0].path[0]).toBe(field)
        }
      }
      expectError(yield* request("POST", "/api/v1/clients", { key: org.apiKey, raw: "{\"name\":", headers: { "content-type": "application/json" } }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/clients", { key: org.apiKey, raw: "name=A", headers: { "content-type": "text/plain" } }), 400, "invalid_request")
      expectError(yield* post("/api/v1/clients", { name: "A", businessId: NIL }, { key: org.apiKey }), 400, "invalid_request", "linked_record_not_found")
      const list = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(list.body.pagination.total).toBe(0)
    }))

  it.effect("401 without or with a bad or revoked key; 403 without the scope", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization(["clients:read"])
      const missing = yield* get("/api/v1/clients")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* get("/api/v1/clients", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* get("/api/v1/clients", { bearer: org.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")
      expectError(yield* request("GET", "/api/v1/clients", { headers: { authorization: `Basic ${org.apiKey}` } }), 401, "unauthorized")

      const forbidden = yield* post("/api/v1/clients", { name: "A" }, { key: org.apiKey })
      expectError(forbidden, 403, "forbidden")
      expect(forbidden.body.error.message).toContain("clients:write")
      const writer = yield* server.organization(["clients:write"])
      expectError(yield* get("/api/v1/clients", { key: writer.apiKey }), 403, "forbidden")

      expect((yield* get("/api/v1/clients", { key: org.apiKey })).status).toBe(200)
      yield* server.revokeKey(org.apiKeyId)
      expectError(yield* get("/api/v1/clients", { key: org.apiKey }), 401, "unauthorized")
    }))

  it.effect("another organization's client is 404 on every operation and never listed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = (yield* post("/api/v1/clients", { name: "Theirs" }, { key: theirs.apiKey })).body
      expectError(yield* get(`/api/v1/clients/${theirClient.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/clients/${theirClient.id}`, { name: "Mine now" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/clients/${theirClient.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* post("/api/v1/clients", { name: "A", businessId: theirs.businessId }, { key: mine.apiKey }), 400, "invalid_request", "linked_record_not_found")
      expect((yield* get("/api/v1/clients", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/clients/${theirClient.id}`, { key: theirs.apiKey })).body.name).toBe("Theirs")
    }))

  it.effect("PATCH validates and changes nothing on a bad body; an unknown id is 404", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = (yield* post("/api/v1/clients", { name: "Keep" }, { key: org.apiKey })).body
      expectError(yield* patch(`/api/v1/clients/${client.id}`, { name: "" }, { key: org.apiKey }), 400, "invalid_request", "invalid_payload")
      expectError(yield* patch(`/api/v1/clients/${client.id}`, { businessId: org.businessId }, { key: org.apiKey }), 400, "invalid_request", "invalid_payload")
      expectError(yield* patch(`/api/v1/clients/${client.id}`, { taxSettings: { overrideTaxRate: true } }, { key: org.apiKey }), 400, "invalid_request")
      expectError(yield* patch(`/api/v1/clients/${NIL}`, { name: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/clients/not-a-uuid", { key: org.apiKey }), 404, "not_found")
      expect((yield* get(`/api/v1/clients/${client.id}`, { key: org.apiKey })).body).toEqual(client)
    }))

  it.effect("a client with contacts or projects cannot be deleted", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = (yield* post("/api/v1/clients", { name: "Parent" }, { key: org.apiKey })).body
      const contact = (yield* post("/api/v1/contacts", { name: "Child", clientId: client.id }, { key: org.apiKey })).body
      expectError(yield* del(`/api/v1/clients/${client.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expect((yield* del(`/api/v1/contacts/${contact.id}`, { key: org.apiKey })).status).toBe(204)
      const project = (yield* post("/api/v1/projects", { name: "Job", clientId: client.id }, { key: org.apiKey })).body
      expectError(yield* del(`/api/v1/clients/${client.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expect((yield* del(`/api/v1/projects/${project.id}`, { key: org.apiKey })).status).toBe(204)
      expect((yield* del(`/api/v1/clients/${client.id}`, { key: org.apiKey })).status).toBe(204)
    }))

  it.effect("pagination: defaults, edges, past the end, and newest first", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push((yield* post("/api/v1/clients", { name: `C${i}` }, { key: org.apiKey })).body.id)
      const page1 = yield* get("/api/v1/clients?pageSize=2", { key: org.apiKey })
      expect(page1.body.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]])
      expect(page1.body.pagination).toEqual({ page: 1, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
      const page3 = yield* get("/api/v1/clients?pageSize=2&page=3", { key: org.apiKey })
      expect(page3.body.data.map((c: any) => c.id)).toEqual([ids[0]])
      expect(page3.body.pagination.hasMore).toBe(false)
      const past = yield* get("/api/v1/clients?pageSize=2&page=9", { key: org.apiKey })
      expect(past.status).toBe(200)
      expect(past.body).toEqual({ data: [], pagination: { page: 9, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
      for (const query of ["pageSize=0", "pageSize=101", "pageSize=999", "pageSize=abc", "page=0", "page=-1", "page=1.5", "page=abc", "pageSize=", "updatedSince=yesterday"]) {
        expectError(yield* get(`/api/v1/clients?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      expect((yield* get("/api/v1/clients?pageSize=100&unknownParam=1", { key: org.apiKey })).status).toBe(200)
      const since = yield* get(`/api/v1/clients?updatedSince=${encodeURIComponent(page1.body.data[0].updatedAt)}`, { key: org.apiKey })
      expect(since.body.data.map((c: any) => c.id)).toEqual([ids[4]])
      const empty = yield* (yield* TestServer).organization()
      expect((yield* get("/api/v1/clients", { key: empty.apiKey })).body.pagination).toEqual({ page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false })
    }))

  it.effect.prop(
    "every schema-valid create body is accepted and read back equal",
    [Arbitraries.clientCreate],
    ([body]) =>
      Effect.gen(function*() {
        const org = yield* (yield* TestServer).organization()
        const input = { ...body, businessId: undefined }
        const created = yield* post("/api/v1/clients", input, { key: org.apiKey })
        expect(created.status).toBe(201)
        const read = (yield* get(`/api/v1/clients/${created.body.id}`, { key: org.apiKey })).body
        expect(read).toEqual(created.body)
        expect(read.name).toBe(body.name)
        expect(read.status).toBe(body.status ?? "active")
        expect(read.notes).toBe(body.notes ?? null)
        if (body.taxSettings?.taxRate !== undefined) expect(read.taxSettings.taxRate).toBe(body.taxSettings.taxRate)
        if (body.invoiceRemindersEnabled !== undefined) expect(read.invoiceRemindersEnabled).toBe(body.invoiceRemindersEnabled)
      }).pipe(Effect.catchDefect(Effect.die)),
    { arbitrary: { runs: 30 } }
  )
})

describe("decoding", () => {
  it("ClientCreate rejects unknown fields", () => {
    expect(() => Schema.decodeUnknownSync(ClientCreate, strict)({ name: "A", extra: 1 })).toThrow()
  })
})
