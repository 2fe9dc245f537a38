import { describe, expect, it, layer } from "@effect/vitest"
import { ContactCreate, ContactUpdate, strict } from "@bizops/domain"
import { Arbitraries, created, del, expectError, expectInvalid, get, newClient, NIL, patch, post, request, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect, Schema } from "effect"

const newContact = (key: string, body: Record<string, unknown>) => created("/api/v1/contacts", key, body)

layer(TestServerLive)("contacts", (it) => {
  it.effect("create, get, update, list and delete a contact", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)

      const minimal = yield* post("/api/v1/contacts", { name: "Grace" }, { key: org.apiKey })
      expect(minimal.status).toBe(201)
      expect(minimal.body).toEqual({
        id: expect.any(String),
        name: "Grace",
        email: null,
        phone: null,
        title: null,
        role: "other",
        isPrimary: false,
        clientId: null,
        sourceSubmissionId: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })

      const created = yield* post("/api/v1/contacts", {
        name: "Ada Lovelace",
        email: "ada@example.com",
        phone: "+1 555 0100",
        title: "Director",
        role: "billing",
        isPrimary: true,
        clientId: client.id
      }, { key: org.apiKey })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: "Ada Lovelace",
        email: "ada@example.com",
        phone: "+1 555 0100",
        title: "Director",
        role: "billing",
        isPrimary: true,
        clientId: client.id,
        sourceSubmissionId: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      const id = created.body.id

      const fetched = yield* get(`/api/v1/contacts/${id}`, { bearer: org.apiKey })
      expect(fetched.status).toBe(200)
      expect(fetched.body).toEqual(created.body)

      const updated = yield* patch(`/api/v1/contacts/${id}`, { title: null, phone: "555", role: "primary" }, { key: org.apiKey })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({
        ...created.body,
        title: null,
        phone: "555",
        role: "primary",
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt))
      expect((yield* get(`/api/v1/contacts/${id}`, { key: org.apiKey })).body).toEqual(updated.body)

      const unchanged = yield* patch(`/api/v1/contacts/${id}`, {}, { key: org.apiKey })
      expect(unchanged.status).toBe(200)
      expect(unchanged.body).toEqual(updated.body)

      const detached = yield* patch(`/api/v1/contacts/${id}`, { clientId: null, email: null }, { key: org.apiKey })
      expect(detached.status).toBe(200)
      expect(detached.body.clientId).toBeNull()
      expect(detached.body.email).toBeNull()

      const list = yield* get("/api/v1/contacts", { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(list.body).toEqual({
        data: [detached.body, minimal.body],
        pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false }
      })

      const removed = yield* del(`/api/v1/contacts/${id}`, { key: org.apiKey })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/contacts/${id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/contacts/${id}`, { name: "Back" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/contacts/${id}`, { key: org.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/contacts", { key: org.apiKey })).body.data.map((c: any) => c.id)).toEqual([minimal.body.id])
    }))

  it.effect("400 on every bound, unknown and read-only fields on create; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const bad: Array<[unknown, string]> = [
        [{}, "name"],
        [{ name: "" }, "name"],
        [{ name: "x".repeat(201) }, "name"],
        [{ name: 7 }, "name"],
        [{ name: null }, "name"],
        [{ name: "A\u0000B" }, "name"],
        [{ name: "A", email: "not-an-email" }, "email"],
        [{ name: "A", email: "a@b" }, "email"],
        [{ name: "A", email: "a b@c.com" }, "email"],
        [{ name: "A", email: "" }, "email"],
        [{ name: "A", email: 5 }, "email"],
        [{ name: "A", phone: "1".repeat(51) }, "phone"],
        [{ name: "A", title: "t".repeat(201) }, "title"],
        [{ name: "A", role: "owner" }, "role"],
        [{ name: "A", role: null }, "role"],
        [{ name: "A", isPrimary: "true" }, "isPrimary"],
        [{ name: "A", isPrimary: 1 }, "isPrimary"],
        [{ name: "A", isPrimary: null }, "isPrimary"],
        [{ name: "A", clientId: "not-a-uuid" }, "clientId"],
        [{ name: "A", clientId: 12 }, "clientId"],
        [{ name: "A", nmae: "typo" }, "nmae"],
        [{ name: "A", id: NIL }, "id"],
        [{ name: "A", createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ name: "A", updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"],
        [{ name: "A", sourceSubmissionId: NIL }, "sourceSubmissionId"]
      ]
      for (const [body, field] of bad) {
        expectInvalid(yield* post("/api/v1/contacts", body, { key: org.apiKey }), field)
      }
      expectError(yield* post("/api/v1/contacts", [], { key: org.apiKey }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/contacts", { key: org.apiKey, raw: "{\"name\":", headers: { "content-type": "application/json" } }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/contacts", { key: org.apiKey, raw: "name=A", headers: { "content-type": "text/plain" } }), 400, "invalid_request")

      // The bounds themselves are accepted.
      const edge = yield* post("/api/v1/contacts", {
        name: "x".repeat(200),
        phone: "1".repeat(50),
        title: "t".repeat(200),
        email: null,
        clientId: null
      }, { key: org.apiKey })
      expect(edge.status).toBe(201)
      expect(edge.body.name).toHaveLength(200)
      expect(edge.body.phone).toHaveLength(50)
      expect(edge.body.title).toHaveLength(200)

      const list = yield* get("/api/v1/contacts", { key: org.apiKey })
      expect(list.body.pagination.total).toBe(1)
      expect(list.body.data.map((c: any) => c.id)).toEqual([edge.body.id])
    }))

  it.effect("PATCH validates every field and changes nothing on a bad body; unknown or malformed ids are 404", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, { name: "Keep", email: "keep@example.com", clientId: client.id })
      const bad: Array<[unknown, string]> = [
        [{ name: "" }, "name"],
        [{ name: null }, "name"],
        [{ name: "x".repeat(201) }, "name"],
        [{ email: "nope" }, "email"],
        [{ phone: "1".repeat(51) }, "phone"],
        [{ title: "t".repeat(201) }, "title"],
        [{ role: "boss" }, "role"],
        [{ isPrimary: "yes" }, "isPrimary"],
        [{ clientId: "abc" }, "clientId"],
        [{ id: NIL }, "id"],
        [{ createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"],
        [{ sourceSubmissionId: NIL }, "sourceSubmissionId"],
        [{ name: "Ok", extra: true }, "extra"]
      ]
      for (const [body, field] of bad) {
        expectInvalid(yield* patch(`/api/v1/contacts/${contact.id}`, body, { key: org.apiKey }), field)
      }
      expectError(yield* patch(`/api/v1/contacts/${contact.id}`, { clientId: NIL }, { key: org.apiKey }), 400, "invalid_request", "linked_record_not_found")
      expectError(yield* patch(`/api/v1/contacts/${NIL}`, { name: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/contacts/${NIL}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/contacts/${NIL}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/contacts/not-a-uuid", { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch("/api/v1/contacts/not-a-uuid", { name: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del("/api/v1/contacts/not-a-uuid", { key: org.apiKey }), 404, "not_found")
      expect((yield* get(`/api/v1/contacts/${contact.id}`, { key: org.apiKey })).body).toEqual(contact)
    }))

  it.effect("401 without or with a bad key; 403 without the contacts scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const contact = yield* newContact(owner.apiKey, { name: "Scoped" })

      const missing = yield* get("/api/v1/contacts")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/contacts", { name: "A" }), 401, "unauthorized")
      expectError(yield* get(`/api/v1/contacts/${contact.id}`), 401, "unauthorized")
      expectError(yield* patch(`/api/v1/contacts/${contact.id}`, { name: "B" }), 401, "unauthorized")
      expectError(yield* del(`/api/v1/contacts/${contact.id}`), 401, "unauthorized")
      expectError(yield* get("/api/v1/contacts", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* get("/api/v1/contacts", { bearer: owner.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")
      expectError(yield* post("/api/v1/contacts", { name: "A" }, { key: "bok_nope" }), 401, "unauthorized")

      const reader = yield* server.organization(["contacts:read"])
      const readerContact = yield* get("/api/v1/contacts", { key: reader.apiKey })
      expect(readerContact.status).toBe(200)
      for (
        const res of [
          yield* post("/api/v1/contacts", { name: "A" }, { key: reader.apiKey }),
          yield* patch(`/api/v1/contacts/${NIL}`, { name: "A" }, { key: reader.apiKey }),
          yield* del(`/api/v1/contacts/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("contacts:write")
      }

      const writer = yield* server.organization(["contacts:write"])
      for (
        const res of [
          yield* get("/api/v1/contacts", { key: writer.apiKey }),
          yield* get(`/api/v1/contacts/${NIL}`, { key: writer.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("contacts:read")
      }
      expect((yield* post("/api/v1/contacts", { name: "W" }, { key: writer.apiKey })).status).toBe(201)

      const clientsOnly = yield* server.organization(["clients:read", "clients:write"])
      const forbidden = yield* get("/api/v1/contacts", { key: clientsOnly.apiKey })
      expectError(forbidden, 403, "forbidden")
      expect(forbidden.body.error.message).toContain("contacts:read")
      const forbiddenWrite = yield* post("/api/v1/contacts", { name: "A" }, { key: clientsOnly.apiKey })
      expectError(forbiddenWrite, 403, "forbidden")
      expect(forbiddenWrite.body.error.message).toContain("contacts:write")

      // Nothing was changed by the refused requests.
      expect((yield* get(`/api/v1/contacts/${contact.id}`, { key: owner.apiKey })).body).toEqual(contact)
      expect((yield* get("/api/v1/contacts", { key: owner.apiKey })).body.pagination.total).toBe(1)
    }))

  it.effect("another organization's contact is 404 on every operation and never listed; its client cannot be named", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = yield* newClient(theirs.apiKey, { name: "Theirs" })
      const theirContact = yield* newContact(theirs.apiKey, { name: "Their contact", email: "t@example.com", clientId: theirClient.id, isPrimary: true })

      expectError(yield* get(`/api/v1/contacts/${theirContact.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/contacts/${theirContact.id}`, { name: "Mine now" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/contacts/${theirContact.id}`, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/contacts", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/contacts?clientId=${theirClient.id}`, { key: mine.apiKey })).body.data).toEqual([])

      for (const isPrimary of [false, true]) {
        const linked = yield* post("/api/v1/contacts", { name: "Spy", clientId: theirClient.id, isPrimary }, { key: mine.apiKey })
        expectError(linked, 400, "invalid_request", "linked_record_not_found")
        expect(linked.body.error.details.field).toBe("clientId")
      }
      const unknownClient = yield* post("/api/v1/contacts", { name: "Ghost", clientId: NIL }, { key: mine.apiKey })
      expectError(unknownClient, 400, "invalid_request", "linked_record_not_found")
      expect(unknownClient.body.error.details.field).toBe("clientId")

      const myContact = yield* newContact(mine.apiKey, { name: "Mine" })
      const moved = yield* patch(`/api/v1/contacts/${myContact.id}`, { clientId: theirClient.id, isPrimary: true }, { key: mine.apiKey })
      expectError(moved, 400, "invalid_request", "linked_record_not_found")
      expect(moved.body.error.details.field).toBe("clientId")

      expect((yield* get("/api/v1/contacts", { key: mine.apiKey })).body.data).toEqual([myContact])
      expect((yield* get(`/api/v1/contacts/${theirContact.id}`, { key: theirs.apiKey })).body).toEqual(theirContact)
      expect((yield* get("/api/v1/contacts", { key: theirs.apiKey })).body.data).toEqual([theirContact])
    }))

  it.effect("pagination: defaults, edges, past the end, newest first; filter by clientId", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const a = yield* newClient(org.apiKey, { name: "A" })
      const b = yield* newClient(org.apiKey, { name: "B" })
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const clientId = i === 4 ? null : i % 2 === 0 ? a.id : b.id
        ids.push((yield* newContact(org.apiKey, { name: `P${i}`, clientId })).id)
      }
      const page1 = yield* get("/api/v1/contacts?pageSize=2", { key: org.apiKey })
      expect(page1.status).toBe(200)
      expect(page1.body.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]])
      expect(page1.body.pagination).toEqual({ page: 1, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
      const page2 = yield* get("/api/v1/contacts?pageSize=2&page=2", { key: org.apiKey })
      expect(page2.body.data.map((c: any) => c.id)).toEqual([ids[2], ids[1]])
      const page3 = yield* get("/api/v1/contacts?pageSize=2&page=3", { key: org.apiKey })
      expect(page3.body.data.map((c: any) => c.id)).toEqual([ids[0]])
      expect(page3.body.pagination).toEqual({ page: 3, pageSize: 2, total: 5, totalPages: 3, hasMore: false })
      const past = yield* get("/api/v1/contacts?pageSize=2&page=9", { key: org.apiKey })
      expect(past.status).toBe(200)
      expect(past.body).toEqual({ data: [], pagination: { page: 9, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
      const max = yield* get("/api/v1/contacts?pageSize=100&unknownParam=1", { key: org.apiKey })
      expect(max.status).toBe(200)
      expect(max.body.pagination).toEqual({ page: 1, pageSize: 100, total: 5, totalPages: 1, hasMore: false })
      const one = yield* get("/api/v1/contacts?pageSize=1", { key: org.apiKey })
      expect(one.body.pagination).toEqual({ page: 1, pageSize: 1, total: 5, totalPages: 5, hasMore: true })

      for (
        const query of [
          "pageSize=0",
          "pageSize=101",
          "pageSize=abc",
          "pageSize=-1",
          "pageSize=2.5",
          "pageSize=",
          "page=0",
          "page=-1",
          "page=1.5",
          "page=abc",
          "clientId=abc",
          "clientId=",
          "updatedSince=yesterday"
        ]
      ) {
        expectError(yield* get(`/api/v1/contacts?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      const badFilter = yield* get("/api/v1/contacts?clientId=not-a-uuid", { key: org.apiKey })
      expectError(badFilter, 400, "invalid_request", "invalid_payload")

      const ofA = yield* get(`/api/v1/contacts?clientId=${a.id}`, { key: org.apiKey })
      expect(ofA.body.data.map((c: any) => c.id)).toEqual([ids[2], ids[0]])
      expect(ofA.body.pagination).toEqual({ page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false })
      expect(ofA.body.data.every((c: any) => c.clientId === a.id)).toBe(true)
      const ofB = yield* get(`/api/v1/contacts?clientId=${b.id}&pageSize=1&page=2`, { key: org.apiKey })
      expect(ofB.body.data.map((c: any) => c.id)).toEqual([ids[1]])
      expect(ofB.body.pagination).toEqual({ page: 2, pageSize: 1, total: 2, totalPages: 2, hasMore: false })
      const ofNobody = yield* get(`/api/v1/contacts?clientId=${NIL}`, { key: org.apiKey })
      expect(ofNobody.status).toBe(200)
      expect(ofNobody.body).toEqual({ data: [], pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false } })

      const empty = yield* (yield* TestServer).organization()
      expect((yield* get("/api/v1/contacts", { key: empty.apiKey })).body).toEqual({
        data: [],
        pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false }
      })
    }))

  it.effect("at most one contact of a client is primary: create and update clear the others; role is independent", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { name: "Acme" })
      const other = yield* newClient(org.apiKey, { name: "Other" })
      const read = (id: string) => Effect.map(get(`/api/v1/contacts/${id}`, { key: org.apiKey }), (r) => r.body)

      const first = yield* newContact(org.apiKey, { name: "First", clientId: client.id, isPrimary: true, role: "other" })
      expect(first.isPrimary).toBe(true)
      expect(first.role).toBe("other")
      const otherPrimary = yield* newContact(org.apiKey, { name: "Other's", clientId: other.id, isPrimary: true })
      const loose1 = yield* newContact(org.apiKey, { name: "Loose 1", isPrimary: true })
      const loose2 = yield* newContact(org.apiKey, { name: "Loose 2", isPrimary: true })

      const second = yield* newContact(org.apiKey, { name: "Second", clientId: client.id, isPrimary: true, role: "billing" })
      expect(second.isPrimary).toBe(true)
      expect(second.role).toBe("billing")
      const firstAfter = yield* read(first.id)
      expect(firstAfter.isPrimary).toBe(false)
      expect(firstAfter.role).toBe("other")
      // Another client's primary and contacts without a client are untouched.
      expect((yield* read(otherPrimary.id)).isPrimary).toBe(true)
      expect((yield* read(loose1.id)).isPrimary).toBe(true)
      expect((yield* read(loose2.id)).isPrimary).toBe(true)

      // A non-primary contact does not take the flag away.
      const third = yield* newContact(org.apiKey, { name: "Third", clientId: client.id, role: "primary" })
      expect(third.isPrimary).toBe(false)
      expect(third.role).toBe("primary")
      expect((yield* read(second.id)).isPrimary).toBe(true)

      // Updating a contact to primary clears the others of the same client.
      const promoted = yield* patch(`/api/v1/contacts/${first.id}`, { isPrimary: true }, { key: org.apiKey })
      expect(promoted.status).toBe(200)
      expect(promoted.body.isPrimary).toBe(true)
      expect(promoted.body.role).toBe("other")
      expect((yield* read(second.id)).isPrimary).toBe(false)
      expect((yield* read(second.id)).role).toBe("billing")
      expect((yield* read(third.id)).isPrimary).toBe(false)
      expect((yield* read(otherPrimary.id)).isPrimary).toBe(true)

      // Changing the role does not change the flag, either way.
      const roleOnly = yield* patch(`/api/v1/contacts/${third.id}`, { role: "billing" }, { key: org.apiKey })
      expect(roleOnly.body).toMatchObject({ role: "billing", isPrimary: false })
      expect((yield* read(first.id)).isPrimary).toBe(true)
      const firstRole = yield* patch(`/api/v1/contacts/${first.id}`, { role: "primary" }, { key: org.apiKey })
      expect(firstRole.body).toMatchObject({ role: "primary", isPrimary: true })

      // Moving a contact to another client as primary clears that client's primary, not the old one's.
      const movedIn = yield* patch(`/api/v1/contacts/${third.id}`, { clientId: other.id, isPrimary: true }, { key: org.apiKey })
      expect(movedIn.status).toBe(200)
      expect(movedIn.body).toMatchObject({ clientId: other.id, isPrimary: true })
      expect((yield* read(otherPrimary.id)).isPrimary).toBe(false)
      expect((yield* read(first.id)).isPrimary).toBe(true)

      // Unsetting the flag leaves the client without a primary.
      const demoted = yield* patch(`/api/v1/contacts/${first.id}`, { isPrimary: false }, { key: org.apiKey })
      expect(demoted.body.isPrimary).toBe(false)

      const all = (yield* get(`/api/v1/contacts?clientId=${client.id}`, { key: org.apiKey })).body.data
      expect(all.filter((c: any) => c.isPrimary)).toEqual([])
      const ofOther = (yield* get(`/api/v1/contacts?clientId=${other.id}`, { key: org.apiKey })).body.data
      expect(ofOther.filter((c: any) => c.isPrimary).map((c: any) => c.id)).toEqual([third.id])
    }))

  it.effect("an email is unique per client, case-insensitively; other clients and no client are fine", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { name: "Acme" })
      const other = yield* newClient(org.apiKey, { name: "Other" })
      const ada = yield* newContact(org.apiKey, { name: "Ada", email: "Ada@Example.com", clientId: client.id })

      for (const email of ["Ada@Example.com", "ada@example.com", "ADA@EXAMPLE.COM"]) {
        expectError(yield* post("/api/v1/contacts", { name: "Dup", email, clientId: client.id }, { key: org.apiKey }), 409, "conflict", "duplicate_record")
      }
      const sameElsewhere = yield* post("/api/v1/contacts", { name: "Ada too", email: "ada@example.com", clientId: other.id }, { key: org.apiKey })
      expect(sameElsewhere.status).toBe(201)
      const loose1 = yield* post("/api/v1/contacts", { name: "Loose", email: "ada@example.com" }, { key: org.apiKey })
      expect(loose1.status).toBe(201)
      const loose2 = yield* post("/api/v1/contacts", { name: "Loose again", email: "ADA@example.com", clientId: null }, { key: org.apiKey })
      expect(loose2.status).toBe(201)
      // Contacts without an email never collide.
      expect((yield* post("/api/v1/contacts", { name: "No email 1", clientId: client.id }, { key: org.apiKey })).status).toBe(201)
      expect((yield* post("/api/v1/contacts", { name: "No email 2", clientId: client.id, email: null }, { key: org.apiKey })).status).toBe(201)

      // Another organization may use the same email for its own client.
      const theirs = yield* (yield* TestServer).organization()
      const theirClient = yield* newClient(theirs.apiKey)
      expect((yield* post("/api/v1/contacts", { name: "Ada", email: "ada@example.com", clientId: theirClient.id }, { key: theirs.apiKey })).status).toBe(201)

      // Updates: taking a sibling's email (any case) is 409; moving to a client that has the email is 409.
      const bob = yield* newContact(org.apiKey, { name: "Bob", email: "bob@example.com", clientId: client.id })
      expectError(yield* patch(`/api/v1/contacts/${bob.id}`, { email: "ADA@example.COM" }, { key: org.apiKey }), 409, "conflict", "duplicate_record")
      expectError(yield* patch(`/api/v1/contacts/${sameElsewhere.body.id}`, { clientId: client.id }, { key: org.apiKey }), 409, "conflict", "duplicate_record")
      expectError(yield* patch(`/api/v1/contacts/${loose1.body.id}`, { clientId: client.id, isPrimary: true }, { key: org.apiKey }), 409, "conflict", "duplicate_record")
      expect((yield* get(`/api/v1/contacts/${bob.id}`, { key: org.apiKey })).body).toEqual(bob)
      expect((yield* get(`/api/v1/contacts/${sameElsewhere.body.id}`, { key: org.apiKey })).body).toEqual(sameElsewhere.body)
      expect((yield* get(`/api/v1/contacts/${loose1.body.id}`, { key: org.apiKey })).body).toEqual(loose1.body)

      // A contact may change the case of its own email; a moved contact's email then is free on the old client.
      const recased = yield* patch(`/api/v1/contacts/${ada.id}`, { email: "ada@example.com" }, { key: org.apiKey })
      expect(recased.status).toBe(200)
      expect(recased.body.email).toBe("ada@example.com")
      const moved = yield* patch(`/api/v1/contacts/${bob.id}`, { clientId: other.id }, { key: org.apiKey })
      expect(moved.status).toBe(200)
      expect(moved.body.clientId).toBe(other.id)
      expect((yield* post("/api/v1/contacts", { name: "Bob 2", email: "bob@example.com", clientId: client.id }, { key: org.apiKey })).status).toBe(201)
      expect((yield* get(`/api/v1/contacts?clientId=${client.id}`, { key: org.apiKey })).body.pagination.total).toBe(4)
    }))

  it.effect("concurrent writes keep the rules: at most one primary per client, one contact per email", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const primaries = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => post("/api/v1/contacts", { name: `Racer ${i}`, clientId: client.id, isPrimary: true }, { key: org.apiKey })),
        { concurrency: "unbounded" }
      )
      // The client's row is locked while its primary changes hands: every request succeeds, the last wins.
      expect(primaries.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201])
      const listed = (yield* get(`/api/v1/contacts?clientId=${client.id}`, { key: org.apiKey })).body.data
      expect(listed).toHaveLength(6)
      expect(listed.filter((c: any) => c.isPrimary)).toHaveLength(1)

      const sameEmail = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => post("/api/v1/contacts", { name: `Twin ${i}`, email: "twin@example.com", clientId: client.id }, { key: org.apiKey })),
        { concurrency: "unbounded" }
      )
      expect(sameEmail.filter((r) => r.status === 201)).toHaveLength(1)
      for (const res of sameEmail.filter((r) => r.status !== 201)) expectError(res, 409, "conflict", "duplicate_record")
    }))

  it.effect.prop(
    "every schema-valid create body is accepted and read back equal",
    [Arbitraries.contactCreate, Schema.Boolean],
    ([body, withClient]) =>
      Effect.gen(function*() {
        const org = yield* (yield* TestServer).organization()
        const clientId = withClient ? (yield* newClient(org.apiKey)).id : null
        const input = { ...body, clientId }
        const created = yield* post("/api/v1/contacts", input, { key: org.apiKey })
        expect(created.status).toBe(201)
        const read = (yield* get(`/api/v1/contacts/${created.body.id}`, { key: org.apiKey })).body
        expect(read).toEqual(created.body)
        expect(read).toEqual({
          id: created.body.id,
          name: body.name,
          email: body.email ?? null,
          phone: body.phone ?? null,
          title: body.title ?? null,
          role: body.role ?? "other",
          isPrimary: body.isPrimary ?? false,
          clientId,
          sourceSubmissionId: null,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
      }).pipe(Effect.catchDefect(Effect.die)),
    { arbitrary: { runs: 25 } }
  )
})

describe("decoding", () => {
  it("ContactCreate and ContactUpdate reject unknown fields", () => {
    expect(() => Schema.decodeUnknownSync(ContactCreate, strict)({ name: "A", extra: 1 })).toThrow()
    expect(() => Schema.decodeUnknownSync(ContactUpdate, strict)({ extra: 1 })).toThrow()
    expect(Schema.decodeUnknownSync(ContactUpdate, strict)({})).toEqual({})
  })
})
