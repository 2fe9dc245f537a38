import { expect, layer } from "@effect/vitest"
import { canonicalJson, type Contract, contractContent, ContractStatuses, type ContractStatusValue, contractMoves } from "@bizops/domain"
import { del, expectError, expectInvalid, get, makeTestServer, NIL, patch, post, receiver, type Response, TestServer, TIMESTAMP } from "@bizops/testkit"
import { created, fetched, newClient, newContact, newProject, numberedConcurrently, realSleep, subscribe, verified } from "@bizops/testkit"
import { admin, refused, succeeded as ok } from "@bizops/testkit"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"

/**
 * Contracts (issue 16) over real HTTP and the real command line (`contract advance`): numbering, the archive
 * rules, the move table, document versions issued and superseded, the events delivered to a receiver and
 * verified with `standardwebhooks`, scopes and other organizations' records.
 */
/** The server on the real clock (timestamps of today), with webhooks to a loopback receiver allowed. */
const SERVER = makeTestServer({ config: { webhooksAllowInsecure: true } })
const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const advance = (organizationId: string, id: string, to: string) => admin("contract", "advance", "--org", organizationId, "--id", id, "--to", to)

/** Moves a contract through the command line, each move expected to succeed; the contract after the last. */
const walk = (organizationId: string, id: string, ...statuses: Array<string>) =>
  Effect.gen(function*() {
    let contract: any
    for (const to of statuses) contract = ok(yield* advance(organizationId, id, to)).contract
    return contract
  })

const newContract = (key: string, body: Record<string, unknown>) => created("/api/v1/contracts", key, { title: "Agreement", ...body })

const read = (key: string, id: string) => fetched(`/api/v1/contracts/${id}`, key)

const total = (key: string, query = "") => Effect.map(get(`/api/v1/contracts${query}`, { key }), (res) => res.body.pagination.total as number)

/** A 400 linked_record_not_found naming the field. */
const expectUnknownLink = (res: Response, field: string) => {
  expectError(res, 400, "invalid_request", "linked_record_not_found")
  expect(res.body.error.details.field).toBe(field)
}

/** A 409 whose details carry no code (the contract names none for a move or a delete of a non-draft). */
const expectPlainConflict = (res: Response) => {
  expectError(res, 409, "conflict")
  expect(res.body.error.details?.code).toBeUndefined()
}

/** The contract's document versions, oldest first. */
const versionsOf = (key: string, id: string) =>
  Effect.map(fetched(`/api/v1/document-versions?documentId=${id}&pageSize=100`, key), (body) =>
    [...body.data].sort((a: any, b: any) => a.versionNumber - b.versionNumber))

/** SHA-256 of the canonical JSON of what the client sees, computed here from the domain's functions. */
const expectedHash = (contract: unknown) =>
  createHash("sha256").update(canonicalJson(contractContent(contract as Contract))).digest("hex")

/** Sets a contract's status directly in the database: the start of one move of the table. */
const setStatus = (id: string, status: string) =>
  Effect.flatMap(TestServer, (server) =>
    server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE contracts SET status = ${status} WHERE id = ${id}`)))

layer(SERVER, REAL_CLOCK)("contracts: create", (it) => {
  it.effect("a minimal draft: C-0001, draft, no signers, client_only, richtext, the organization's currency", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const res = yield* post("/api/v1/contracts", { title: "Wedding photography agreement", clientId: client.id }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        contractNumber: "C-0001",
        title: "Wedding photography agreement",
        clientId: client.id,
        billingContactId: null,
        projectId: null,
        sourceTemplateId: null,
        status: "draft",
        signingMode: "client_only",
        contentType: "richtext",
        issueDate: null,
        effectiveDate: null,
        expirationDate: null,
        signedDate: null,
        currency: "USD",
        contractValue: null,
        signers: [],
        archived: false,
        archivedAt: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.updatedAt).toBe(res.body.createdAt)
      expect(yield* read(org.apiKey, res.body.id)).toEqual(res.body)
      expect((yield* newContract(org.apiKey, { clientId: client.id })).contractNumber).toBe("C-0002")
    }))

  it.effect("every field given is read back as written; the currency is the organization's at creation", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE organizations SET currency = 'EUR' WHERE id = ${org.organizationId}`))
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const project = yield* newProject(org.apiKey, client.id)
      const body = {
        title: "x".repeat(300),
        clientId: client.id,
        billingContactId: contact.id,
        projectId: project.id,
        sourceTemplateId: NIL,
        issueDate: "2027-05-01",
        effectiveDate: "2027-06-01",
        expirationDate: "2027-06-01",
        contractValue: 4800.55
      }
      const res = yield* post("/api/v1/contracts", body, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ ...body, currency: "EUR", status: "draft", contractNumber: "C-0001" })
      expect(yield* read(org.apiKey, res.body.id)).toEqual(res.body)
      // null for every optional field is the same as leaving it out.
      const nulls = yield* newContract(org.apiKey, {
        clientId: client.id,
        billingContactId: null,
        projectId: null,
        sourceTemplateId: null,
        issueDate: null,
        effectiveDate: null,
        expirationDate: null,
        contractValue: null
      })
      expect(nulls).toMatchObject({ billingContactId: null, projectId: null, contractValue: null, effectiveDate: null, contractNumber: "C-0002" })
      expect((yield* newContract(org.apiKey, { clientId: client.id, contractValue: 0 })).contractValue).toBe(0)
    }))

  it.effect("400 on a bad body (each changes nothing and takes no number)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const body = (extra: Record<string, unknown>) => ({ title: "Agreement", clientId: client.id, ...extra })
      const { title: _title, ...noTitle } = body({})
      expectInvalid(yield* post("/api/v1/contracts", noTitle, { key: org.apiKey }), "title")
      expectInvalid(yield* post("/api/v1/contracts", { title: "Agreement" }, { key: org.apiKey }), "clientId")
      expectInvalid(yield* post("/api/v1/contracts", body({ title: "" }), { key: org.apiKey }), "title")
      expectInvalid(yield* post("/api/v1/contracts", body({ title: "x".repeat(301) }), { key: org.apiKey }), "title")
      expectInvalid(yield* post("/api/v1/contracts", body({ clientId: "nope" }), { key: org.apiKey }), "clientId")
      expectInvalid(yield* post("/api/v1/contracts", body({ contractValue: -1 }), { key: org.apiKey }), "contractValue")
      expectInvalid(yield* post("/api/v1/contracts", body({ contractValue: 1.005 }), { key: org.apiKey }), "contractValue")
      expectInvalid(yield* post("/api/v1/contracts", body({ effectiveDate: "2027-02-30" }), { key: org.apiKey }), "effectiveDate")
      expectInvalid(yield* post("/api/v1/contracts", body({ sourceTemplateId: "template" }), { key: org.apiKey }), "sourceTemplateId")
      const backwards = yield* post("/api/v1/contracts", body({ effectiveDate: "2027-06-02", expirationDate: "2027-06-01" }), { key: org.apiKey })
      expectInvalid(backwards, "expirationDate")
      expect(backwards.body.error.details.issues[0].message).toBe("must be on or after effectiveDate")
      // Creation makes drafts only: status, and every field the service sets, are unknown fields.
      for (const extra of [{ status: "sent" }, { contractNumber: "C-0100" }, { currency: "EUR" }, { signers: [] }, { archived: true }, { signingMode: "counter_sign" }]) {
        const res = yield* post("/api/v1/contracts", body(extra), { key: org.apiKey })
        expectError(res, 400, "invalid_request", "invalid_payload")
      }
      expect(yield* total(org.apiKey)).toBe(0)
      expect((yield* newContract(org.apiKey, { clientId: client.id })).contractNumber).toBe("C-0001")
    }))

  it.effect("linked records: the client, billing contact and project must be the organization's (and the contact and project the client's)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      const client = yield* newClient(org.apiKey)
      const sibling = yield* newClient(org.apiKey, { name: "Sibling" })
      const theirClient = yield* newClient(other.apiKey)
      const siblingsContact = yield* newContact(org.apiKey, sibling.id)
      const siblingsProject = yield* newProject(org.apiKey, sibling.id)
      const theirContact = yield* newContact(other.apiKey, theirClient.id)
      const theirProject = yield* newProject(other.apiKey, theirClient.id)
      const body = (extra: Record<string, unknown>) => ({ title: "Agreement", clientId: client.id, ...extra })

      expectUnknownLink(yield* post("/api/v1/contracts", body({ clientId: theirClient.id }), { key: org.apiKey }), "clientId")
      expectUnknownLink(yield* post("/api/v1/contracts", body({ clientId: NIL }), { key: org.apiKey }), "clientId")
      expectUnknownLink(yield* post("/api/v1/contracts", body({ billingContactId: NIL }), { key: org.apiKey }), "billingContactId")
      expectUnknownLink(yield* post("/api/v1/contracts", body({ billingContactId: theirContact.id }), { key: org.apiKey }), "billingContactId")
      expectUnknownLink(yield* post("/api/v1/contracts", body({ projectId: NIL }), { key: org.apiKey }), "projectId")
      expectUnknownLink(yield* post("/api/v1/contracts", body({ projectId: theirProject.id }), { key: org.apiKey }), "projectId")
      expectInvalid(yield* post("/api/v1/contracts", body({ billingContactId: siblingsContact.id }), { key: org.apiKey }), "billingContactId")
      expectInvalid(yield* post("/api/v1/contracts", body({ projectId: siblingsProject.id }), { key: org.apiKey }), "projectId")
      expect(yield* total(org.apiKey)).toBe(0)
      expect(yield* total(other.apiKey)).toBe(0)
      // No refusal took a number.
      expect((yield* newContract(org.apiKey, { clientId: sibling.id, billingContactId: siblingsContact.id, projectId: siblingsProject.id })).contractNumber)
        .toBe("C-0001")
    }))
})

layer(SERVER, REAL_CLOCK)("contracts: numbering", (it) => {
  it.effect("20 concurrent creations get C-0001..C-0020, without gaps or duplicates; each organization has its own series", () =>
    Effect.gen(function*() {
      const { a, b, clientA, clientB } = yield* numberedConcurrently({
        path: "/api/v1/contracts",
        body: (clientId) => ({ title: "Concurrent", clientId }),
        field: "contractNumber",
        prefix: "C"
      })
      expect((yield* newContract(a.apiKey, { clientId: clientA.id })).contractNumber).toBe("C-0021")
      // A deleted draft's number is not given again.
      const last = yield* newContract(b.apiKey, { clientId: clientB.id })
      expect(last.contractNumber).toBe("C-0021")
      expect((yield* del(`/api/v1/contracts/${last.id}`, { key: b.apiKey })).status).toBe(204)
      expect((yield* newContract(b.apiKey, { clientId: clientB.id })).contractNumber).toBe("C-0022")
    }))
})

layer(SERVER, REAL_CLOCK)("contracts: read", (it) => {
  it.effect("a client, contact or project a contract names cannot be deleted (409 record_has_dependents)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const project = yield* newProject(org.apiKey, client.id)
      yield* newContract(org.apiKey, { clientId: client.id, billingContactId: contact.id, projectId: project.id })
      for (const path of [`/api/v1/contacts/${contact.id}`, `/api/v1/projects/${project.id}`, `/api/v1/clients/${client.id}`]) {
        expectError(yield* del(path, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      }
    }))

  it.effect("list: newest first, pages, filters clientId, projectId, status, archived and updatedSince", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const ada = yield* newClient(org.apiKey, { name: "Ada" })
      const bob = yield* newClient(org.apiKey, { name: "Bob" })
      const project = yield* newProject(org.apiKey, ada.id)
      const first = yield* newContract(org.apiKey, { clientId: ada.id, projectId: project.id })
      const second = yield* newContract(org.apiKey, { clientId: ada.id })
      const third = yield* newContract(org.apiKey, { clientId: bob.id })
      yield* setStatus(second.id, "sent")
      expect((yield* patch(`/api/v1/contracts/${third.id}`, { archived: true }, { key: org.apiKey })).status).toBe(200)
      const ids = (res: Response) => res.body.data.map((c: any) => c.id)

      const all = yield* get("/api/v1/contracts", { key: org.apiKey })
      expect(all.status).toBe(200)
      expect(ids(all)).toEqual([third.id, second.id, first.id])
      expect(all.body.pagination).toMatchObject({ page: 1, pageSize: 25, total: 3 })
      const page2 = yield* get("/api/v1/contracts?pageSize=2&page=2", { key: org.apiKey })
      expect(ids(page2)).toEqual([first.id])
      expect(page2.body.pagination).toMatchObject({ page: 2, pageSize: 2, total: 3 })
      expect(ids(yield* get(`/api/v1/contracts?clientId=${ada.id}`, { key: org.apiKey }))).toEqual([second.id, first.id])
      expect(ids(yield* get(`/api/v1/contracts?projectId=${project.id}`, { key: org.apiKey }))).toEqual([first.id])
      expect(ids(yield* get("/api/v1/contracts?status=sent", { key: org.apiKey }))).toEqual([second.id])
      expect(ids(yield* get("/api/v1/contracts?status=draft", { key: org.apiKey }))).toEqual([third.id, first.id])
      expect(ids(yield* get("/api/v1/contracts?archived=true", { key: org.apiKey }))).toEqual([third.id])
      expect(ids(yield* get("/api/v1/contracts?archived=false", { key: org.apiKey }))).toEqual([second.id, first.id])
      expect(ids(yield* get(`/api/v1/contracts?clientId=${ada.id}&status=draft&archived=false`, { key: org.apiKey }))).toEqual([first.id])
      expect(ids(yield* get(`/api/v1/contracts?clientId=${bob.id}&archived=false`, { key: org.apiKey }))).toEqual([])
      const archivedAt = (yield* read(org.apiKey, third.id)).updatedAt
      expect(ids(yield* get(`/api/v1/contracts?updatedSince=${archivedAt}`, { key: org.apiKey }))).toEqual([third.id])
    }))

  it.effect("400 on a bad filter or page", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (
        const query of ["status=signed", "archived=yes", "clientId=nope", "projectId=1", "page=0", "pageSize=101", "updatedSince=yesterday"]
      ) {
        expectError(yield* get(`/api/v1/contracts?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
    }))

  it.effect("get: 404 for no such contract or an id that is not a UUID", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      expectError(yield* get(`/api/v1/contracts/${NIL}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/contracts/not-a-uuid", { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/contracts/${NIL}`, { title: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/contracts/${NIL}`, { key: org.apiKey }), 404, "not_found")
    }))
})

layer(SERVER, REAL_CLOCK)("contracts: update and delete", (it) => {
  it.effect("PATCH title and dates; a body that changes nothing answers the contract unchanged", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id, effectiveDate: "2027-06-01" })
      const path = `/api/v1/contracts/${contract.id}`
      const res = yield* patch(path, { title: "Renamed", expirationDate: "2027-12-31" }, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ...contract, title: "Renamed", expirationDate: "2027-12-31", updatedAt: expect.stringMatching(TIMESTAMP) })
      expect(res.body.updatedAt > contract.updatedAt).toBe(true)
      expect(yield* read(org.apiKey, contract.id)).toEqual(res.body)
      const cleared = yield* patch(path, { effectiveDate: null, expirationDate: null }, { key: org.apiKey })
      expect(cleared.body).toMatchObject({ effectiveDate: null, expirationDate: null })
      for (const body of [{}, { title: "Renamed" }, { archived: false }, { effectiveDate: null }]) {
        const same = yield* patch(path, body, { key: org.apiKey })
        expect(same.status).toBe(200)
        expect(same.body).toEqual(cleared.body)
      }
      // A draft's new dates are no amendment: no document version.
      expect(yield* versionsOf(org.apiKey, contract.id)).toEqual([])
    }))

  it.effect("PATCH 400: dates out of order (given, or against the stored date), bounds, read-only and unknown fields; nothing changes", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id, effectiveDate: "2027-06-01", expirationDate: "2027-12-31" })
      const path = `/api/v1/contracts/${contract.id}`
      const given = yield* patch(path, { effectiveDate: "2028-01-02", expirationDate: "2028-01-01" }, { key: org.apiKey })
      expectInvalid(given, "expirationDate")
      const stored = yield* patch(path, { expirationDate: "2027-05-31" }, { key: org.apiKey })
      expectInvalid(stored, "expirationDate")
      expect(stored.body.error.details.issues[0].message).toBe("must be on or after effectiveDate (2027-06-01)")
      expectInvalid(yield* patch(path, { effectiveDate: "2028-01-01" }, { key: org.apiKey }), "expirationDate")
      expectInvalid(yield* patch(path, { title: "" }, { key: org.apiKey }), "title")
      expectInvalid(yield* patch(path, { title: "x".repeat(301) }, { key: org.apiKey }), "title")
      expectInvalid(yield* patch(path, { title: null }, { key: org.apiKey }), "title")
      expectInvalid(yield* patch(path, { archived: "yes" }, { key: org.apiKey }), "archived")
      expectInvalid(yield* patch(path, { effectiveDate: "June" }, { key: org.apiKey }), "effectiveDate")
      for (const body of [{ status: "sent" }, { clientId: client.id }, { contractNumber: "C-9" }, { contractValue: 1 }, { archivedAt: null }, { issueDate: "2027-01-01" }]) {
        expectError(yield* patch(path, body, { key: org.apiKey }), 400, "invalid_request", "invalid_payload")
      }
      expect(yield* read(org.apiKey, contract.id)).toEqual(contract)
      // Equal dates are in order.
      expect((yield* patch(path, { expirationDate: "2027-06-01" }, { key: org.apiKey })).status).toBe(200)
    }))

  it.effect("the archive rules: archived true sets archivedAt; then only {archived: false} alone is accepted (409 archived_record_read_only)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id })
      const path = `/api/v1/contracts/${contract.id}`
      const archived = yield* patch(path, { archived: true, title: "Filed away" }, { key: org.apiKey })
      expect(archived.status).toBe(200)
      expect(archived.body).toMatchObject({ archived: true, title: "Filed away", archivedAt: expect.stringMatching(TIMESTAMP) })
      expect(archived.body.archivedAt).toBe(archived.body.updatedAt)

      for (const body of [{ title: "Changed" }, { archived: true }, {}, { archived: false, title: "Changed" }, { expirationDate: "2027-01-01" }]) {
        expectError(yield* patch(path, body, { key: org.apiKey }), 409, "conflict", "archived_record_read_only")
      }
      // Even a draft cannot be deleted while archived, and it moves nowhere.
      expectError(yield* del(path, { key: org.apiKey }), 409, "conflict", "archived_record_read_only")
      expect(refused(yield* advance(org.organizationId, contract.id, "sent"))).toEqual({ code: "conflict", message: expect.stringContaining("archived") })
      expect(yield* read(org.apiKey, contract.id)).toEqual(archived.body)

      const restored = yield* patch(path, { archived: false }, { key: org.apiKey })
      expect(restored.status).toBe(200)
      expect(restored.body).toMatchObject({ archived: false, archivedAt: null, title: "Filed away", status: "draft" })
      expect((yield* patch(path, { title: "Back at work" }, { key: org.apiKey })).body.title).toBe("Back at work")
      expect((yield* del(path, { key: org.apiKey })).status).toBe(204)
    }))

  it.effect("DELETE: drafts only (204, then 404); a sent or voided contract is 409; a voided one can still be archived, nothing else", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const draft = yield* newContract(org.apiKey, { clientId: client.id })
      const deleted = yield* del(`/api/v1/contracts/${draft.id}`, { key: org.apiKey })
      expect(deleted.status).toBe(204)
      expect(deleted.text).toBe("")
      expectError(yield* get(`/api/v1/contracts/${draft.id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/contracts/${draft.id}`, { key: org.apiKey }), 404, "not_found")

      const sent = yield* newContract(org.apiKey, { clientId: client.id })
      yield* walk(org.organizationId, sent.id, "sent")
      expectPlainConflict(yield* del(`/api/v1/contracts/${sent.id}`, { key: org.apiKey }))
      const voided = yield* walk(org.organizationId, sent.id, "voided")
      expectPlainConflict(yield* del(`/api/v1/contracts/${sent.id}`, { key: org.apiKey }))
      expectError(yield* patch(`/api/v1/contracts/${sent.id}`, { title: "Changed" }, { key: org.apiKey }), 409, "conflict", "record_immutable")
      expectError(yield* patch(`/api/v1/contracts/${sent.id}`, { expirationDate: "2030-01-01" }, { key: org.apiKey }), 409, "conflict", "record_immutable")
      expect(yield* read(org.apiKey, sent.id)).toEqual(voided)
      expect((yield* patch(`/api/v1/contracts/${sent.id}`, { archived: true }, { key: org.apiKey })).body).toMatchObject({ archived: true, status: "voided" })
      expect(yield* total(org.apiKey)).toBe(1)
    }))
})

/** Every move of the table, as [from, to]. */
const allowedMoves = ContractStatuses.flatMap((from) => contractMoves[from].map((to): [ContractStatusValue, ContractStatusValue] => [from, to]))

layer(SERVER, REAL_CLOCK)("contract advance: the move table", (it) => {
  it.effect("the whole signing path: draft -> sent -> viewed -> active -> completed; signedDate set once, on active", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id })
      const sent = yield* walk(org.organizationId, contract.id, "sent")
      expect(sent).toEqual({ ...contract, status: "sent", updatedAt: expect.stringMatching(TIMESTAMP) })
      expect(yield* read(org.apiKey, contract.id)).toEqual(sent)
      const viewed = yield* walk(org.organizationId, contract.id, "viewed")
      expect(viewed.signedDate).toBeNull()
      const active = yield* walk(org.organizationId, contract.id, "active")
      expect(active.signedDate).toMatch(TIMESTAMP)
      expect(active.signedDate).toBe(active.updatedAt)
      const completed = yield* walk(org.organizationId, contract.id, "completed")
      expect(completed).toMatchObject({ status: "completed", signedDate: active.signedDate })
      expect(yield* read(org.apiKey, contract.id)).toEqual(completed)
    }))

  it.effect(`every allowed move (${allowedMoves.length}) succeeds from its status`, () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      expect(allowedMoves).toHaveLength(11)
      const outcomes = yield* Effect.all(
        allowedMoves.map(([from, to]) =>
          Effect.gen(function*() {
            const contract = yield* newContract(org.apiKey, { clientId: client.id, title: `${from} to ${to}` })
            if (from !== "draft") yield* setStatus(contract.id, from)
            const moved = ok(yield* advance(org.organizationId, contract.id, to)).contract
            const stored = yield* read(org.apiKey, contract.id)
            return { move: `${from}->${to}`, status: moved.status, stored: stored.status, signed: stored.signedDate !== null }
          })
        ),
        { concurrency: 4 }
      )
      expect(outcomes).toEqual(allowedMoves.map(([from, to]) => ({ move: `${from}->${to}`, status: to, stored: to, signed: to === "active" })))
    }), { timeout: 120_000 })

  it.effect("refused moves: 409 conflict naming where the contract can go, and nothing changes", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const refusedMoves: ReadonlyArray<readonly [ContractStatusValue, ContractStatusValue, string]> = [
        ["draft", "active", "it can move to sent or voided"],
        ["draft", "draft", "it can move to sent or voided"],
        ["draft", "completed", "it can move to sent or voided"],
        ["sent", "sent", "it can move to viewed, expired or voided"],
        ["sent", "draft", "it can move to viewed, expired or voided"],
        ["viewed", "sent", "it can move to active, expired or voided"],
        ["active", "viewed", "it can move to completed, expired or voided"],
        ["completed", "voided", "final"],
        ["expired", "active", "final"],
        ["voided", "sent", "final"]
      ]
      const outcomes = yield* Effect.all(
        refusedMoves.map(([from, to]) =>
          Effect.gen(function*() {
            const contract = yield* newContract(org.apiKey, { clientId: client.id, title: `${from} to ${to}` })
            if (from !== "draft") yield* setStatus(contract.id, from)
            const before = yield* read(org.apiKey, contract.id)
            const error = refused(yield* advance(org.organizationId, contract.id, to))
            expect(yield* read(org.apiKey, contract.id)).toEqual(before)
            return { move: `${from}->${to}`, code: error.code, says: error.message }
          })
        ),
        { concurrency: 4 }
      )
      expect(outcomes).toEqual(refusedMoves.map(([from, to, says]) => ({ move: `${from}->${to}`, code: "conflict", says: expect.stringContaining(says) })))
    }), { timeout: 120_000 })

  it.effect("an unknown status is a usage error; another organization's contract, or none, is not_found", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      const contract = yield* newContract(org.apiKey, { clientId: (yield* newClient(org.apiKey)).id })
      const usage = yield* advance(org.organizationId, contract.id, "signed")
      expect(usage.code).toBe(2)
      expect(JSON.parse(usage.stderr.trim().split("\n").at(-1) ?? "null").error.code).toBe("usage")
      expect(refused(yield* advance(other.organizationId, contract.id, "sent"))).toEqual({ code: "not_found", message: "No such contract" })
      expect(refused(yield* advance(org.organizationId, NIL, "sent"))).toEqual({ code: "not_found", message: "No such contract" })
      expect((yield* read(org.apiKey, contract.id)).status).toBe("draft")
    }))
})

layer(SERVER, REAL_CLOCK)("contracts: document versions and events", (it) => {
  it.effect("sending issues version 1; each amendment issues the next and supersedes the previous; voiding voids it", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id, effectiveDate: "2027-06-01", expirationDate: "2027-12-31", contractValue: 1200 })
      const path = `/api/v1/contracts/${contract.id}`
      const sent = yield* walk(org.organizationId, contract.id, "sent")
      const [v1] = yield* versionsOf(org.apiKey, contract.id)
      expect(v1).toMatchObject({
        documentType: "standalone-contract",
        documentId: contract.id,
        documentRef: { relationTo: "contracts", value: contract.id },
        versionNumber: 1,
        subVersionNumber: 0,
        versionStatus: "issued",
        contentHash: expectedHash(sent),
        currency: "USD",
        issuedAt: sent.updatedAt,
        supersededAt: null,
        supersededByVersionId: null
      })

      // A title change is not an amendment; nor are the same dates.
      yield* patch(path, { title: "Renamed after sending" }, { key: org.apiKey })
      yield* patch(path, { effectiveDate: "2027-06-01" }, { key: org.apiKey })
      expect(yield* versionsOf(org.apiKey, contract.id)).toEqual([v1])

      const amended = (yield* patch(path, { expirationDate: "2028-06-30" }, { key: org.apiKey })).body
      expect(amended).toMatchObject({ status: "sent", expirationDate: "2028-06-30", title: "Renamed after sending" })
      const [old1, v2] = yield* versionsOf(org.apiKey, contract.id)
      expect(v2).toMatchObject({ versionNumber: 2, versionStatus: "issued", contentHash: expectedHash(amended), issuedAt: amended.updatedAt })
      expect(v2.contentHash).not.toBe(v1.contentHash)
      expect(old1).toMatchObject({ id: v1.id, versionNumber: 1, versionStatus: "superseded", supersededAt: amended.updatedAt, supersededByVersionId: v2.id })
      expectError(yield* get(`/api/v1/document-versions/${v1.id}`, { key: org.apiKey }), 404, "not_found")
      expect((yield* get(`/api/v1/document-versions/${v2.id}`, { key: org.apiKey })).status).toBe(200)

      // Further along the path, a change of either date (to null too) is an amendment.
      yield* walk(org.organizationId, contract.id, "viewed", "active")
      const again = (yield* patch(path, { effectiveDate: null }, { key: org.apiKey })).body
      const three = yield* versionsOf(org.apiKey, contract.id)
      expect(three.map((v: any) => [v.versionNumber, v.versionStatus])).toEqual([[1, "superseded"], [2, "superseded"], [3, "issued"]])
      expect(three[1].supersededByVersionId).toBe(three[2].id)
      expect(three[2].contentHash).toBe(expectedHash(again))

      yield* walk(org.organizationId, contract.id, "voided")
      const voided = yield* versionsOf(org.apiKey, contract.id)
      expect(voided.map((v: any) => [v.versionNumber, v.versionStatus])).toEqual([[1, "superseded"], [2, "superseded"], [3, "voided"]])
      expect(voided[2].voidedAt).toMatch(TIMESTAMP)
      // A voided draft never had a version.
      const draft = yield* newContract(org.apiKey, { clientId: client.id })
      yield* walk(org.organizationId, draft.id, "voided")
      expect(yield* versionsOf(org.apiKey, draft.id)).toEqual([])
    }))

  it.effect("contract_created, _updated, _deleted and contract_amended are delivered, signed, with the contract and its previous dates", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["contract_created", "contract_updated", "contract_deleted", "contract_amended"])
      const client = yield* newClient(org.apiKey)
      const contract = yield* newContract(org.apiKey, { clientId: client.id, effectiveDate: "2027-06-01", expirationDate: "2027-12-31" })
      const path = `/api/v1/contracts/${contract.id}`
      const renamed = (yield* patch(path, { title: "Renamed" }, { key: org.apiKey })).body
      // No change, no event.
      yield* patch(path, { title: "Renamed" }, { key: org.apiKey })
      const sent = yield* walk(org.organizationId, contract.id, "sent")
      const amended = (yield* patch(path, { effectiveDate: "2027-07-01", expirationDate: "2028-01-31" }, { key: org.apiKey })).body
      const draft = yield* newContract(org.apiKey, { clientId: client.id })
      expect((yield* del(`/api/v1/contracts/${draft.id}`, { key: org.apiKey })).status).toBe(204)

      yield* hook.waitFor(7)
      yield* realSleep(1000)
      const events = hook.received().map(verified)
      expect(events.map((e) => e.type).sort()).toEqual([
        "contract_amended",
        "contract_created",
        "contract_created",
        "contract_deleted",
        "contract_updated",
        "contract_updated",
        "contract_updated"
      ])
      const of = (type: string) => events.filter((e) => e.type === type)
      for (const event of events) expect(event).toMatchObject({ organizationId: org.organizationId, createdAt: expect.stringMatching(TIMESTAMP) })
      expect(of("contract_created").map((e) => e.data.object)).toEqual(expect.arrayContaining([contract, draft]))
      expect(of("contract_deleted").map((e) => e.data.object)).toEqual([draft])
      const updates = of("contract_updated").map((e) => e.data)
      expect(updates).toEqual(expect.arrayContaining([
        { object: renamed, previousAttributes: { title: "Agreement", updatedAt: contract.updatedAt } },
        { object: sent, previousAttributes: { status: "draft", updatedAt: renamed.updatedAt } },
        { object: amended, previousAttributes: { effectiveDate: "2027-06-01", expirationDate: "2027-12-31", updatedAt: sent.updatedAt } }
      ]))
      expect(updates).toHaveLength(3)
      const [amendment] = of("contract_amended")
      expect(of("contract_amended")).toHaveLength(1)
      expect(Object.keys(amendment.data)).toEqual(["object", "previousDates"])
      expect(amendment.data).toEqual({ object: amended, previousDates: { effectiveDate: "2027-06-01", expirationDate: "2027-12-31" } })
      expect(amendment.data.object).toEqual(yield* read(org.apiKey, contract.id))
    })))
})

layer(SERVER, REAL_CLOCK)("contracts: access", (it) => {
  it.effect("401 without or with a bad key on every endpoint; 403 without the contracts scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const client = yield* newClient(owner.apiKey)
      const contract = yield* newContract(owner.apiKey, { clientId: client.id })
      const path = `/api/v1/contracts/${contract.id}`
      const body = { title: "A", clientId: client.id }

      const missing = yield* get("/api/v1/contracts")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/contracts", body), 401, "unauthorized")
      expectError(yield* get(path), 401, "unauthorized")
      expectError(yield* patch(path, { title: "B" }), 401, "unauthorized")
      expectError(yield* del(path), 401, "unauthorized")
      expectError(yield* get("/api/v1/contracts", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* post("/api/v1/contracts", body, { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* get(path, { bearer: owner.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")
      expectError(yield* patch(path, { title: "B" }, { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* del(path, { key: "bok_nope" }), 401, "unauthorized")

      const reader = yield* server.organization(["contracts:read"])
      expect((yield* get("/api/v1/contracts", { key: reader.apiKey })).status).toBe(200)
      for (
        const res of [
          yield* post("/api/v1/contracts", { title: "A", clientId: NIL }, { key: reader.apiKey }),
          yield* patch(`/api/v1/contracts/${NIL}`, { title: "A" }, { key: reader.apiKey }),
          yield* del(`/api/v1/contracts/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("contracts:write")
      }
      const writer = yield* server.organization(["contracts:write", "clients:write"])
      for (const res of [yield* get("/api/v1/contracts", { key: writer.apiKey }), yield* get(`/api/v1/contracts/${NIL}`, { key: writer.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("contracts:read")
      }
      const writersClient = yield* newClient(writer.apiKey)
      expect((yield* post("/api/v1/contracts", { title: "W", clientId: writersClient.id }, { key: writer.apiKey })).status).toBe(201)
      const clientsOnly = yield* server.organization(["clients:read", "clients:write"])
      expectError(yield* get(path, { key: clientsOnly.apiKey }), 403, "forbidden")
      expectError(yield* post("/api/v1/contracts", body, { key: clientsOnly.apiKey }), 403, "forbidden")

      expect(yield* read(owner.apiKey, contract.id)).toEqual(contract)
      expect(yield* total(owner.apiKey)).toBe(1)
    }))

  it.effect("another organization's contract is 404 on every endpoint, never listed, and unchanged", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = yield* newClient(theirs.apiKey)
      const theirContract = yield* newContract(theirs.apiKey, { clientId: theirClient.id })
      const sentOne = yield* newContract(theirs.apiKey, { clientId: theirClient.id })
      yield* walk(theirs.organizationId, sentOne.id, "sent")
      const path = `/api/v1/contracts/${theirContract.id}`

      expectError(yield* get(path, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(path, { title: "Mine now" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(path, { archived: true }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/contracts/${sentOne.id}`, { effectiveDate: "2030-01-01" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(path, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/contracts", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/contracts?clientId=${theirClient.id}`, { key: mine.apiKey })).body.data).toEqual([])
      expectUnknownLink(yield* post("/api/v1/contracts", { title: "Theirs", clientId: theirClient.id }, { key: mine.apiKey }), "clientId")

      expect(yield* read(theirs.apiKey, theirContract.id)).toEqual(theirContract)
      expect(yield* versionsOf(theirs.apiKey, sentOne.id)).toHaveLength(1)
      expect((yield* get(`/api/v1/document-versions?documentId=${sentOne.id}`, { key: mine.apiKey })).body.data).toEqual([])
      expect(yield* total(theirs.apiKey)).toBe(2)
    }))
})
