import { expect, layer } from "@effect/vitest"
import { canonicalJson } from "@bizops/domain"
import { del, expectError, get, makeTestServer, NIL, patch, post, receiver, request, TestServer, TIMESTAMP } from "@bizops/testkit"
import { fetched, newClient, newContact, newProject, realSleep, subscribe, verified } from "@bizops/testkit"
import { admin, importFromFile, importFromStdin, imported as ok, invalidImport as invalid, refused, succeeded } from "@bizops/testkit"
import { Effect } from "effect"
import { createHash } from "node:crypto"

/**
 * Client documents (smart-files, issue 16): imported through the real command line
 * (`import client-documents`), then read over HTTP as a client would; their document versions, their
 * events (verified with `standardwebhooks`), and what the API refuses.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const document = (key: string, id: string) => fetched(`/api/v1/client-documents/${id}`, key)

const listIds = (key: string, query = "") =>
  Effect.map(fetched(`/api/v1/client-documents${query}`, key), (body) => body.data.map((d: { id: string }) => d.id) as Array<string>)

/** A list's order: newest first (createdAt, then id, descending). */
const newestFirst = (docs: ReadonlyArray<{ readonly id: string; readonly createdAt: string }>) =>
  [...docs].sort((x, y) => Date.parse(y.createdAt) - Date.parse(x.createdAt) || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0)).map((d) => d.id)

/** The versions of one document, newest first. */
const versionsOf = (key: string, documentId: string) =>
  Effect.map(fetched(`/api/v1/document-versions?documentId=${documentId}&pageSize=100`, key), (body) => body.data as Array<any>)

/** SHA-256 of the canonical JSON of what the client sees of a document (the resource as the API returns it). */
const hashOf = (doc: any) =>
  createHash("sha256").update(canonicalJson({
    kind: "smart-file",
    title: doc.title,
    contactId: doc.contactId,
    clientId: doc.clientId,
    projectId: doc.projectId,
    clientUrl: doc.clientUrl,
    expiresAt: doc.expiresAt
  })).digest("hex")

layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("client documents", (it) => {
  it.effect("an import creates documents that list and get; templates are never listed and 404; a second run changes nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const project = yield* newProject(org.apiKey, client.id)
      const engagement = yield* newProject(org.apiKey, client.id)
      const records = [
        {
          externalId: "sf-full",
          title: "Wedding proposal",
          status: "accepted",
          contactId: contact.id,
          clientId: client.id,
          projectId: project.id,
          engagementProjectId: engagement.id,
          isTemplate: false,
          clientUrl: "https://clients.example.com/p/sf-full",
          quoteConvertedAt: "2027-03-02T10:00:00Z",
          expiresAt: "2027-04-01T00:00:00+02:00",
          archivedAt: null
        },
        { externalId: "sf-minimal", status: "draft" },
        { externalId: "sf-template", title: "Proposal template", status: "sent", isTemplate: true }
      ]
      const first = ok(yield* importFromFile("client-documents", org.organizationId, records))
      expect(first).toEqual({ created: 3, updated: 0, unchanged: 0, ids: [expect.stringMatching(UUID), expect.stringMatching(UUID), expect.stringMatching(UUID)] })
      const [fullId, minimalId, templateId] = first.ids

      const full = yield* document(org.apiKey, fullId)
      expect(full).toEqual({
        id: fullId,
        kind: "smart-file",
        title: "Wedding proposal",
        status: "accepted",
        contactId: contact.id,
        clientId: client.id,
        projectId: project.id,
        engagementProjectId: engagement.id,
        isTemplate: false,
        clientUrl: "https://clients.example.com/p/sf-full",
        quoteConvertedAt: "2027-03-02T10:00:00.000Z",
        expiresAt: "2027-03-31T22:00:00.000Z",
        archivedAt: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      const minimal = yield* document(org.apiKey, minimalId)
      expect(minimal).toEqual({
        id: minimalId,
        kind: "smart-file",
        title: null,
        status: "draft",
        contactId: null,
        clientId: null,
        projectId: null,
        engagementProjectId: null,
        isTemplate: false,
        clientUrl: null,
        quoteConvertedAt: null,
        expiresAt: null,
        archivedAt: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })

      // The template is stored (it has an id) but is no part of the API.
      expectError(yield* get(`/api/v1/client-documents/${templateId}`, { key: org.apiKey }), 404, "not_found")
      const list = yield* get("/api/v1/client-documents", { key: org.apiKey })
      expect(list.body).toEqual({
        data: newestFirst([full, minimal]).map((id) => (id === fullId ? full : minimal)),
        pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false }
      })
      expect(yield* listIds(org.apiKey, "?status=sent")).toEqual([])
      // Nor has it a version, though its status is sent.
      expect(yield* versionsOf(org.apiKey, templateId)).toEqual([])

      const again = ok(yield* importFromStdin("client-documents", org.organizationId, records))
      expect(again).toEqual({ created: 0, updated: 0, unchanged: 3, ids: first.ids })
      expect(yield* document(org.apiKey, fullId)).toEqual(full)
      expect((yield* get("/api/v1/client-documents", { key: org.apiKey })).body).toEqual(list.body)
    }))

  it.effect("a changed record updates its document by externalId; a template turned document appears, a document turned template disappears", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const [a, t] = ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "a", title: "Quote", status: "draft", clientId: client.id, clientUrl: "http://x.example/a" },
        { externalId: "t", title: "Template", status: "draft", isTemplate: true }
      ])).ids
      const before = yield* document(org.apiKey, a)
      yield* realSleep(5)

      const changed = ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "a", title: "Quote v2", status: "viewed", archivedAt: "2027-05-01T00:00:00.000Z" },
        { externalId: "t", title: "Template", status: "draft", isTemplate: false }
      ]))
      expect(changed).toEqual({ created: 0, updated: 2, unchanged: 0, ids: [a, t] })
      const after = yield* document(org.apiKey, a)
      // Fields left out are null: the file is the whole record.
      expect(after).toEqual({
        ...before,
        title: "Quote v2",
        status: "viewed",
        clientId: null,
        clientUrl: null,
        archivedAt: "2027-05-01T00:00:00.000Z",
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt))
      expect((yield* document(org.apiKey, t)).isTemplate).toBe(false)
      expect((yield* listIds(org.apiKey)).sort()).toEqual([a, t].sort())

      ok(yield* importFromStdin("client-documents", org.organizationId, [{ externalId: "a", title: "Quote v2", status: "viewed", isTemplate: true }]))
      expectError(yield* get(`/api/v1/client-documents/${a}`, { key: org.apiKey }), 404, "not_found")
      expect(yield* listIds(org.apiKey)).toEqual([t])
    }), { timeout: 120_000 })

  it.effect("filters clientId, projectId and status; pagination; updatedSince", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const c1 = yield* newClient(org.apiKey)
      const c2 = yield* newClient(org.apiKey)
      const p1 = yield* newProject(org.apiKey, c1.id)
      const { ids } = ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "1", status: "draft", clientId: c1.id, projectId: p1.id },
        { externalId: "2", status: "sent", clientId: c1.id },
        { externalId: "3", status: "sent", clientId: c2.id, projectId: p1.id },
        { externalId: "4", status: "void" },
        { externalId: "5", status: "sent", clientId: c1.id, isTemplate: true }
      ]))
      const docs = yield* Effect.forEach(ids.slice(0, 4), (id) => document(org.apiKey, id))
      const expected = (indexes: ReadonlyArray<number>) => newestFirst(indexes.map((i) => docs[i]))
      expect(yield* listIds(org.apiKey)).toEqual(expected([0, 1, 2, 3]))
      expect(yield* listIds(org.apiKey, `?clientId=${c1.id}`)).toEqual(expected([0, 1]))
      expect(yield* listIds(org.apiKey, `?projectId=${p1.id}`)).toEqual(expected([0, 2]))
      expect(yield* listIds(org.apiKey, "?status=sent")).toEqual(expected([1, 2]))
      expect(yield* listIds(org.apiKey, `?status=sent&clientId=${c1.id}`)).toEqual(expected([1]))
      expect(yield* listIds(org.apiKey, "?status=accepted")).toEqual([])
      const page = yield* get("/api/v1/client-documents?page=2&pageSize=3", { key: org.apiKey })
      expect(page.body.pagination).toEqual({ page: 2, pageSize: 3, total: 4, totalPages: 2, hasMore: false })
      expect(page.body.data.map((d: { id: string }) => d.id)).toEqual(expected([0, 1, 2, 3]).slice(3))
      const latest = Math.max(...docs.map((d) => Date.parse(d.updatedAt)))
      expect(yield* listIds(org.apiKey, `?updatedSince=${new Date(latest + 1).toISOString()}`)).toEqual([])
      expect((yield* listIds(org.apiKey, `?updatedSince=${new Date(latest).toISOString()}`)).length).toBeGreaterThan(0)
      for (const query of ["status=open", "clientId=nope", "projectId=1", "pageSize=0"]) {
        expectError(yield* get(`/api/v1/client-documents?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
    }))

  it.effect("a document that becomes sent issues a smart-file version in the organization's currency; only a new entry into sent with new content issues again", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      succeeded(yield* admin("org", "update", "--id", org.organizationId, "--currency", "EUR"))
      const client = yield* newClient(org.apiKey)
      const engagement = yield* newProject(org.apiKey, client.id)
      const sent = {
        externalId: "sf-1",
        title: "Proposal",
        status: "sent",
        clientId: client.id,
        engagementProjectId: engagement.id,
        clientUrl: "https://clients.example.com/p/1",
        quoteConvertedAt: "2027-02-01T09:00:00.000Z",
        expiresAt: "2027-03-01T00:00:00.000Z"
      }
      const before = Date.now()
      const [id, draftId, templateId] = ok(yield* importFromStdin("client-documents", org.organizationId, [
        sent,
        { externalId: "sf-draft", title: "Draft", status: "draft" },
        { externalId: "sf-template", title: "Template", status: "sent", isTemplate: true }
      ])).ids
      const doc = yield* document(org.apiKey, id)
      const [v1, ...none] = yield* versionsOf(org.apiKey, id)
      expect(none).toEqual([])
      expect(v1).toEqual({
        id: expect.stringMatching(UUID),
        documentType: "smart-file",
        documentId: id,
        documentRef: { relationTo: "client-documents", value: id },
        versionNumber: 1,
        subVersionNumber: 0,
        versionStatus: "issued",
        contentHash: hashOf(doc),
        currency: "EUR",
        issuedAt: expect.stringMatching(TIMESTAMP),
        viewedAt: null,
        acceptedAt: null,
        acceptedBy: null,
        supersededAt: null,
        supersededByVersionId: null,
        voidedAt: null,
        quoteConvertedAt: "2027-02-01T09:00:00.000Z",
        expiresAt: "2027-03-01T00:00:00.000Z",
        engagementProjectId: engagement.id,
        parentVersionId: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(Date.parse(v1.issuedAt)).toBeGreaterThanOrEqual(before - 1000)
      expect((yield* get(`/api/v1/document-versions/${v1.id}`, { key: org.apiKey })).body).toEqual(v1)
      expect(yield* versionsOf(org.apiKey, draftId)).toEqual([])
      expect(yield* versionsOf(org.apiKey, templateId)).toEqual([])

      // sent → sent (even with what the client sees changed) and sent → viewed issue nothing: only entering sent does.
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ ...sent, title: "Proposal (typo fixed)" }]))
      expect(yield* versionsOf(org.apiKey, id)).toEqual([v1])
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ ...sent, archivedAt: "2027-02-02T00:00:00.000Z" }]))
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ ...sent, status: "viewed" }]))
      expect(yield* versionsOf(org.apiKey, id)).toEqual([v1])
      // Back to sent with what the client sees unchanged: the issued version stands.
      ok(yield* importFromStdin("client-documents", org.organizationId, [sent]))
      expect(yield* versionsOf(org.apiKey, id)).toEqual([v1])
      // A change while viewed, then sent again: version 2 supersedes version 1.
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ ...sent, status: "viewed", title: "Proposal, revised" }]))
      expect(yield* versionsOf(org.apiKey, id)).toEqual([v1])
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ ...sent, title: "Proposal, revised" }]))
      const revised = yield* document(org.apiKey, id)
      const [v2, old] = yield* versionsOf(org.apiKey, id)
      expect(v2).toMatchObject({ versionNumber: 2, versionStatus: "issued", contentHash: hashOf(revised), currency: "EUR" })
      expect(v2.contentHash).not.toBe(v1.contentHash)
      expect(old).toEqual({ ...v1, versionStatus: "superseded", supersededAt: expect.stringMatching(TIMESTAMP), supersededByVersionId: v2.id, updatedAt: expect.stringMatching(TIMESTAMP) })
      expectError(yield* get(`/api/v1/document-versions/${v1.id}`, { key: org.apiKey }), 404, "not_found")

      // A draft that becomes sent issues; a template turned into a sent document issues.
      ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "sf-draft", title: "Draft", status: "sent" },
        { externalId: "sf-template", title: "Template", status: "sent", isTemplate: false }
      ]))
      expect((yield* versionsOf(org.apiKey, draftId)).map((v) => [v.versionNumber, v.versionStatus, v.currency])).toEqual([[1, "issued", "EUR"]])
      expect((yield* versionsOf(org.apiKey, templateId)).map((v) => [v.versionNumber, v.contentHash])).toEqual([[1, hashOf(yield* document(org.apiKey, templateId))]])

      // The list's filters work for smart-files, beside invoices.
      const invoice = yield* post("/api/v1/invoices", { clientId: client.id, status: "sent", lineItems: [{ description: "x", quantity: 1, unitPrice: 1 }] }, { key: org.apiKey })
      expect(invoice.status).toBe(201)
      const smartFiles = yield* get("/api/v1/document-versions?documentType=smart-file&pageSize=100", { key: org.apiKey })
      expect(smartFiles.body.data.map((v: any) => v.documentType)).toEqual(["smart-file", "smart-file", "smart-file", "smart-file"])
      expect(smartFiles.body.data.map((v: any) => v.documentId).sort()).toEqual([id, id, draftId, templateId].sort())
      const issued = yield* get("/api/v1/document-versions?documentType=smart-file&versionStatus=issued", { key: org.apiKey })
      expect(issued.body.pagination.total).toBe(3)
      const invoices = yield* get("/api/v1/document-versions?documentType=invoice", { key: org.apiKey })
      expect(invoices.body.data.map((v: any) => v.documentId)).toEqual([invoice.body.id])
      expect((yield* get(`/api/v1/document-versions?documentType=smart-file&documentId=${draftId}`, { key: org.apiKey })).body.pagination.total).toBe(1)
    }), { timeout: 120_000 })

  it.effect("read-only: POST, PATCH and DELETE are 405 with Allow GET, and change nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const [id] = ok(yield* importFromStdin("client-documents", org.organizationId, [{ externalId: "ro", title: "Read only", status: "draft" }])).ids
      const doc = yield* document(org.apiKey, id)
      for (
        const res of [
          yield* post("/api/v1/client-documents", { title: "New", status: "draft" }, { key: org.apiKey }),
          yield* patch(`/api/v1/client-documents/${id}`, { title: "Changed" }, { key: org.apiKey }),
          yield* del(`/api/v1/client-documents/${id}`, { key: org.apiKey }),
          yield* request("PUT", `/api/v1/client-documents/${id}`, { key: org.apiKey, json: { title: "Put" } }),
          // Without credentials too: the route decides first.
          yield* del(`/api/v1/client-documents/${NIL}`)
        ]
      ) {
        expectError(res, 405, "method_not_allowed")
        expect(res.headers.get("allow")).toBe("GET")
      }
      expect(yield* document(org.apiKey, id)).toEqual(doc)
      expect(yield* listIds(org.apiKey)).toEqual([id])
    }))

  it.effect("an invalid file imports nothing: every issue with its record and path; links must be the organization's", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const theirs = yield* server.organization()
      const client = yield* newClient(org.apiKey)
      const theirClient = yield* newClient(theirs.apiKey)
      const theirContact = yield* newContact(theirs.apiKey, theirClient.id)
      const theirProject = yield* newProject(theirs.apiKey, theirClient.id)
      const good = { externalId: "good", title: "Fine", status: "sent", clientId: client.id }

      const schemaIssues = invalid(yield* importFromStdin("client-documents", org.organizationId, [
        good,
        { externalId: "bad-status", status: "archived" },
        { externalId: "bad-url", status: "draft", clientUrl: "javascript:alert(1)" },
        { externalId: "unknown", status: "draft", kind: "smart-file" },
        { status: "draft" },
        { externalId: "", status: "draft" },
        { externalId: "bad-date", status: "draft", expiresAt: "next week" },
        { externalId: "bad-id", status: "draft", clientId: "client-1" },
        { externalId: "long", status: "draft", title: "x".repeat(501) }
      ]))
      expect(schemaIssues.issues.map((issue) => [issue.index, issue.path[0]])).toEqual([
        [1, "status"],
        [2, "clientUrl"],
        [3, "kind"],
        [4, "externalId"],
        [5, "externalId"],
        [6, "expiresAt"],
        [7, "clientId"],
        [8, "title"]
      ])
      expect(schemaIssues.message).toContain("record 1")

      const links = invalid(yield* importFromStdin("client-documents", org.organizationId, [
        good,
        { externalId: "l1", status: "draft", clientId: theirClient.id },
        { externalId: "l2", status: "draft", contactId: theirContact.id, projectId: theirProject.id },
        { externalId: "l3", status: "draft", engagementProjectId: NIL }
      ]))
      expect(links.issues.map((issue) => [issue.index, issue.path])).toEqual([[2, ["contactId"]], [1, ["clientId"]], [2, ["projectId"]], [3, ["engagementProjectId"]]])
      for (const issue of links.issues) expect(issue.message).toContain("linked_record_not_found")

      const notArray = invalid(yield* importFromStdin("client-documents", org.organizationId, good))
      expect(notArray.issues).toEqual([{ index: -1, path: [], message: "the file must be a JSON array of records" }])
      expect(invalid(yield* importFromStdin("client-documents", org.organizationId, "[{")).issues[0].index).toBe(-1)
      expect(refused(yield* importFromStdin("client-documents", NIL, [good])).code).toBe("not_found")

      // Nothing was imported, not even the good record; and nothing in the other organization.
      expect(yield* listIds(org.apiKey)).toEqual([])
      expect(yield* listIds(theirs.apiKey)).toEqual([])
      expect((yield* get("/api/v1/document-versions", { key: org.apiKey })).body.pagination.total).toBe(0)
      expect(ok(yield* importFromStdin("client-documents", org.organizationId, [good])).created).toBe(1)
    }), { timeout: 120_000 })

  it.effect("a client, contact or project that a document names cannot be deleted (409 record_has_dependents)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const project = yield* newProject(org.apiKey, client.id)
      const other = yield* newProject(org.apiKey, client.id)
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ externalId: "d", status: "draft", contactId: contact.id, projectId: project.id, engagementProjectId: other.id }]))
      expectError(yield* del(`/api/v1/projects/${project.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expectError(yield* del(`/api/v1/projects/${other.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expectError(yield* del(`/api/v1/contacts/${contact.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      // The document let go of them: they can go.
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ externalId: "d", status: "draft" }]))
      expect((yield* del(`/api/v1/projects/${other.id}`, { key: org.apiKey })).status).toBe(204)
      expect((yield* del(`/api/v1/contacts/${contact.id}`, { key: org.apiKey })).status).toBe(204)
    }))

  it.effect("client_document_created and client_document_updated are delivered, signed; templates have no events", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["client_document_created", "client_document_updated"])
      const [id] = ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "e1", title: "Proposal", status: "draft" },
        { externalId: "e-template", title: "Template", status: "draft", isTemplate: true }
      ])).ids
      const created = yield* document(org.apiKey, id)
      ok(yield* importFromStdin("client-documents", org.organizationId, [
        { externalId: "e1", title: "Proposal", status: "sent" },
        { externalId: "e-template", title: "Template v2", status: "draft", isTemplate: true }
      ]))
      const updated = yield* document(org.apiKey, id)
      // Unchanged: no event.
      ok(yield* importFromStdin("client-documents", org.organizationId, [{ externalId: "e1", title: "Proposal", status: "sent" }]))

      yield* hook.waitFor(2)
      yield* realSleep(1500)
      const events = hook.received().map(verified)
      expect(events.map((event) => event.type).sort()).toEqual(["client_document_created", "client_document_updated"])
      const byType = Object.fromEntries(events.map((event) => [event.type, event]))
      expect(byType.client_document_created.data).toEqual({ object: created })
      expect(byType.client_document_updated.data).toEqual({ object: updated, previousAttributes: { status: "draft", updatedAt: created.updatedAt } })
      for (const event of events) expect(event.organizationId).toBe(org.organizationId)
    })), { timeout: 120_000 })

  it.effect("401 without or with a bad key; 403 without client-documents:read; another organization's document is 404 and never listed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const client = yield* newClient(owner.apiKey)
      const [id] = ok(yield* importFromStdin("client-documents", owner.organizationId, [{ externalId: "x", status: "sent", clientId: client.id }])).ids

      for (
        const res of [
          yield* get("/api/v1/client-documents"),
          yield* get(`/api/v1/client-documents/${id}`),
          yield* get("/api/v1/client-documents", { key: "bok_nope" }),
          yield* get(`/api/v1/client-documents/${id}`, { bearer: owner.apiKey.slice(0, -1) + "x" })
        ]
      ) expectError(res, 401, "unauthorized")

      const other = yield* server.organization(["clients:read", "projects:read", "document-versions:read"])
      for (const res of [yield* get("/api/v1/client-documents", { key: other.apiKey }), yield* get(`/api/v1/client-documents/${id}`, { key: other.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("client-documents:read")
      }

      const reader = yield* server.organization(["client-documents:read"])
      expectError(yield* get(`/api/v1/client-documents/${id}`, { key: reader.apiKey }), 404, "not_found")
      expect(yield* listIds(reader.apiKey)).toEqual([])
      expect(yield* listIds(reader.apiKey, `?clientId=${client.id}`)).toEqual([])
      expectError(yield* get("/api/v1/client-documents/not-a-uuid", { key: reader.apiKey }), 404, "not_found")
      // The same externalId in another organization is a record of its own.
      const [theirs] = ok(yield* importFromStdin("client-documents", reader.organizationId, [{ externalId: "x", status: "draft" }])).ids
      expect(theirs).not.toBe(id)
      expect(yield* listIds(reader.apiKey)).toEqual([theirs])
      expect((yield* document(owner.apiKey, id)).status).toBe("sent")
    }))
})
