import { expect, layer } from "@effect/vitest"
import { canonicalJson } from "@bizops/domain"
import { del, expectError, get, NIL, patch, post, request, type Response, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { created, fetched, newClient, newContact, newProject } from "@bizops/testkit"
import { Effect } from "effect"
import { createHash } from "node:crypto"

/**
 * The server runs on the real clock, not the TestClock of the test services (which stands at 1970):
 * "today" decides default issue dates, overdue and reissue dates.
 */
const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const LINE = { description: "Consulting", quantity: 1, unitPrice: 100 }

const newInvoice = (key: string, body: Record<string, unknown>) => created("/api/v1/invoices", key, { lineItems: [LINE], ...body })

const editInvoice = (key: string, id: string, body: Record<string, unknown>) =>
  Effect.map(patch(`/api/v1/invoices/${id}`, body, { key }), (res) => {
    expect(res.status).toBe(200)
    return res.body
  })

const pay = (key: string, invoice: { id: string; clientId: string }, amount: number) =>
  created("/api/v1/payments", key, { clientId: invoice.clientId, invoiceId: invoice.id, amount, receivedDate: "2026-11-01", method: "cash" })

/** What the client sees of an invoice, as the behaviour doc lists it. */
const clientView = (invoice: any) => ({
  invoiceNumber: invoice.invoiceNumber,
  clientId: invoice.clientId,
  billingContactId: invoice.billingContactId,
  subject: invoice.subject,
  issueDate: invoice.issueDate,
  dueDate: invoice.dueDate,
  currency: invoice.currency,
  paymentTerms: invoice.paymentTerms,
  notes: invoice.notes,
  lineItems: invoice.lineItems.map((line: any) => ({
    description: line.description,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    taxable: line.taxable,
    discountPercent: line.discountPercent,
    total: line.total
  })),
  subtotal: invoice.subtotal,
  discountAmount: invoice.discountAmount,
  taxAmount: invoice.taxAmount,
  total: invoice.total
})

/** Lowercase hex SHA-256 of the canonical JSON of the invoice's client view. */
const hashOf = (invoice: any) => createHash("sha256").update(canonicalJson(clientView(invoice))).digest("hex")

/** The versions of one document, newest first. */
const versionsOf = (key: string, documentId: string) =>
  Effect.map(fetched(`/api/v1/document-versions?documentId=${documentId}`, key), (body) => body.data as Array<any>)

/** Keys that must never appear in a document-version response, at any depth. */
const expectNoSecrets = (res: Response) => {
  expect(res.text).not.toMatch(/"(content|frozenContent|accessToken|organizationId)"\s*:/)
}

/** An issued version of an invoice, as the API shows it. */
const issuedVersion = (invoice: any, versionNumber: number) => ({
  id: expect.stringMatching(UUID),
  documentType: "invoice",
  documentId: invoice.id,
  documentRef: { relationTo: "invoices", value: invoice.id },
  versionNumber,
  subVersionNumber: 0,
  versionStatus: "issued",
  contentHash: hashOf(invoice),
  currency: "USD",
  issuedAt: expect.stringMatching(TIMESTAMP),
  viewedAt: null,
  acceptedAt: null,
  acceptedBy: null,
  supersededAt: null,
  supersededByVersionId: null,
  voidedAt: null,
  quoteConvertedAt: null,
  expiresAt: null,
  engagementProjectId: null,
  parentVersionId: null,
  createdAt: expect.stringMatching(TIMESTAMP),
  updatedAt: expect.stringMatching(TIMESTAMP)
})

layer(TestServerLive, REAL_CLOCK)("document versions", (it) => {
  it.effect("creating a sent invoice issues version 1, its contentHash the SHA-256 of the canonical client view", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 8.875, defaultTaxable: true } })
      const contact = yield* newContact(org.apiKey, client.id)
      const before = Date.now()
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        status: "sent",
        billingContactId: contact.id,
        subject: "Spring",
        paymentTerms: "Net 14",
        notes: "Thanks",
        issueDate: "2026-11-01",
        dueDate: "2026-11-15",
        lineItems: [
          { description: "Stamps", quantity: 1.5, unitPrice: 0.05 },
          { description: "Prints", quantity: 3, unitPrice: 199.99, discountPercent: 12.5, taxable: false }
        ]
      })
      const after = Date.now()
      const list = yield* get(`/api/v1/document-versions?documentId=${invoice.id}`, { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(list.body).toEqual({
        data: [issuedVersion(invoice, 1)],
        pagination: { page: 1, pageSize: 25, total: 1, totalPages: 1, hasMore: false }
      })
      const version = list.body.data[0]
      expect(version.contentHash).toMatch(/^[0-9a-f]{64}$/)
      expect(Date.parse(version.issuedAt)).toBeGreaterThanOrEqual(before - 1000)
      expect(Date.parse(version.issuedAt)).toBeLessThanOrEqual(after + 1000)
      expectNoSecrets(list)

      const one = yield* get(`/api/v1/document-versions/${version.id}`, { key: org.apiKey })
      expect(one.status).toBe(200)
      expect(one.body).toEqual(version)
      expectNoSecrets(one)
    }))

  it.effect("sending a draft by PATCH issues version 1; a draft has no versions", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const draft = yield* newInvoice(org.apiKey, { clientId: client.id, subject: "Draft" })
      expect(yield* versionsOf(org.apiKey, draft.id)).toEqual([])
      yield* editInvoice(org.apiKey, draft.id, { subject: "Still a draft", notes: "n" })
      expect(yield* versionsOf(org.apiKey, draft.id)).toEqual([])
      expect((yield* get("/api/v1/document-versions", { key: org.apiKey })).body.pagination.total).toBe(0)

      const sent = yield* editInvoice(org.apiKey, draft.id, { status: "sent" })
      expect(sent.status).toBe("sent")
      expect(yield* versionsOf(org.apiKey, draft.id)).toEqual([issuedVersion(sent, 1)])
      // Sending again changes nothing.
      yield* editInvoice(org.apiKey, draft.id, { status: "sent" })
      expect(yield* versionsOf(org.apiKey, draft.id)).toHaveLength(1)
    }))

  it.effect("editing what the client sees issues version 2 and supersedes version 1, which is no longer retrievable", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const invoice = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "First" })
      const [v1] = yield* versionsOf(key, invoice.id)
      const edited = yield* editInvoice(key, invoice.id, { subject: "Second" })
      const versions = yield* versionsOf(key, invoice.id)
      expect(versions).toHaveLength(2)
      const [v2, old] = versions
      expect(v2).toEqual(issuedVersion(edited, 2))
      expect(v2.contentHash).not.toBe(v1.contentHash)
      expect(old).toEqual({
        ...v1,
        versionStatus: "superseded",
        supersededAt: expect.stringMatching(TIMESTAMP),
        supersededByVersionId: v2.id,
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(Date.parse(old.supersededAt)).toBeGreaterThanOrEqual(Date.parse(v1.issuedAt))

      expectError(yield* get(`/api/v1/document-versions/${v1.id}`, { key }), 404, "not_found")
      const current = yield* get(`/api/v1/document-versions/${v2.id}`, { key })
      expect(current.status).toBe(200)
      expect(current.body).toEqual(v2)
    }))

  it.effect("every client-visible field issues a new version: notes, dueDate, paymentTerms, billingContactId, issueDate", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const contact = yield* newContact(key, client.id)
      const invoice = yield* newInvoice(key, { clientId: client.id, status: "sent", issueDate: "2026-11-01", dueDate: "2026-12-01" })
      const edits: Array<Record<string, unknown>> = [
        { notes: "New notes" },
        { dueDate: "2026-12-15" },
        { paymentTerms: "Net 45" },
        { billingContactId: contact.id },
        { issueDate: "2026-11-02" }
      ]
      let latest = invoice
      for (const [i, edit] of edits.entries()) {
        latest = yield* editInvoice(key, invoice.id, edit)
        const versions = yield* versionsOf(key, invoice.id)
        expect(versions).toHaveLength(i + 2)
        expect(versions[0]).toEqual(issuedVersion(latest, i + 2))
        expect(versions.slice(1).map((v) => v.versionStatus)).toEqual(versions.slice(1).map(() => "superseded"))
        expect(versions[1].supersededByVersionId).toBe(versions[0].id)
      }
      expect((yield* versionsOf(key, invoice.id)).map((v) => v.versionNumber)).toEqual([6, 5, 4, 3, 2, 1])
    }))

  it.effect("an edit that does not change the content, and payments, issue nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const project = yield* newProject(key, client.id)
      const invoice = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "Same" })
      const initial = yield* versionsOf(key, invoice.id)
      expect(initial).toHaveLength(1)

      yield* editInvoice(key, invoice.id, { projectIds: [project.id] })
      yield* editInvoice(key, invoice.id, { subject: "Same" })
      yield* editInvoice(key, invoice.id, { status: "sent" })
      expect(yield* versionsOf(key, invoice.id)).toEqual(initial)

      yield* pay(key, invoice, 40)
      expect(yield* versionsOf(key, invoice.id)).toEqual(initial)
      yield* pay(key, invoice, 60)
      expect((yield* get(`/api/v1/invoices/${invoice.id}`, { key })).body.status).toBe("paid")
      expect(yield* versionsOf(key, invoice.id)).toEqual(initial)

      // A paid invoice's visible edit does issue the next version.
      const edited = yield* editInvoice(key, invoice.id, { notes: "Paid, thank you" })
      expect(edited.status).toBe("paid")
      const versions = yield* versionsOf(key, invoice.id)
      expect(versions).toHaveLength(2)
      expect(versions[0]).toEqual(issuedVersion(edited, 2))
    }))

  it.effect("voiding a sent invoice marks its issued version voided, no longer retrievable", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const invoice = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "One" })
      yield* editInvoice(key, invoice.id, { subject: "Two" })
      const [issued, superseded] = yield* versionsOf(key, invoice.id)
      const voidedInvoice = yield* editInvoice(key, invoice.id, { status: "void" })
      expect(voidedInvoice.status).toBe("void")

      const [voided, stillSuperseded] = yield* versionsOf(key, invoice.id)
      expect(voided).toEqual({
        ...issued,
        versionStatus: "voided",
        voidedAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(stillSuperseded).toEqual(superseded)
      expectError(yield* get(`/api/v1/document-versions/${issued.id}`, { key }), 404, "not_found")
      expectError(yield* get(`/api/v1/document-versions/${superseded.id}`, { key }), 404, "not_found")
    }))

  it.effect("a reissue voids the old invoice's version; the new draft has none until it is sent", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const invoice = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      const reissued = yield* post(`/api/v1/invoices/${invoice.id}/reissue`, {}, { key })
      expect(reissued.status).toBe(201)
      expect((yield* versionsOf(key, invoice.id)).map((v) => v.versionStatus)).toEqual(["voided"])
      expect(yield* versionsOf(key, reissued.body.id)).toEqual([])
      const sent = yield* editInvoice(key, reissued.body.id, { status: "sent" })
      expect(yield* versionsOf(key, reissued.body.id)).toEqual([issuedVersion(sent, 1)])
    }))

  it.effect("list filters documentType, documentId and versionStatus, newest first; bad filter values are 400", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const a = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "A1" })
      yield* editInvoice(key, a.id, { subject: "A2" })
      const b = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "B1" })
      const c = yield* newInvoice(key, { clientId: client.id, status: "sent", subject: "C1" })
      yield* editInvoice(key, c.id, { status: "void" })
      yield* newInvoice(key, { clientId: client.id, subject: "Draft" })

      const [a2, a1] = yield* versionsOf(key, a.id)
      const [b1] = yield* versionsOf(key, b.id)
      const [c1] = yield* versionsOf(key, c.id)
      const ids = (res: Response) => res.body.data.map((v: any) => v.id)
      const all = yield* get("/api/v1/document-versions", { key })
      expect(all.status).toBe(200)
      expect(ids(all)).toEqual([c1.id, b1.id, a2.id, a1.id])
      expect(all.body.pagination).toEqual({ page: 1, pageSize: 25, total: 4, totalPages: 1, hasMore: false })
      expectNoSecrets(all)

      const list = (query: string) => Effect.map(get(`/api/v1/document-versions?${query}`, { key }), ids)
      expect(yield* list("documentType=invoice")).toEqual([c1.id, b1.id, a2.id, a1.id])
      expect(yield* list("documentType=smart-file")).toEqual([])
      expect(yield* list("documentType=standalone-contract")).toEqual([])
      expect(yield* list("versionStatus=issued")).toEqual([b1.id, a2.id])
      expect(yield* list("versionStatus=superseded")).toEqual([a1.id])
      expect(yield* list("versionStatus=voided")).toEqual([c1.id])
      expect(yield* list(`documentId=${a.id}&versionStatus=issued`)).toEqual([a2.id])
      expect(yield* list(`documentId=${a.id}&documentType=invoice`)).toEqual([a2.id, a1.id])
      expect(yield* list(`documentId=${NIL}`)).toEqual([])
      const page2 = yield* get("/api/v1/document-versions?pageSize=3&page=2", { key })
      expect(ids(page2)).toEqual([a1.id])
      expect(page2.body.pagination).toEqual({ page: 2, pageSize: 3, total: 4, totalPages: 2, hasMore: false })

      for (const query of ["documentType=bogus", "documentType=invoices", "versionStatus=draft", "documentId=abc", "pageSize=101", "page=0"]) {
        expectError(yield* get(`/api/v1/document-versions?${query}`, { key }), 400, "invalid_request")
      }
    }))

  it.effect("another organization lists none of them and gets 404 on each; unknown and malformed ids are 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const invoice = yield* newInvoice(mine.apiKey, { clientId: (yield* newClient(mine.apiKey)).id, status: "sent" })
      const [version] = yield* versionsOf(mine.apiKey, invoice.id)

      const list = yield* get("/api/v1/document-versions", { key: theirs.apiKey })
      expect(list.body).toEqual({ data: [], pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false } })
      expect((yield* get(`/api/v1/document-versions?documentId=${invoice.id}`, { key: theirs.apiKey })).body.data).toEqual([])
      expectError(yield* get(`/api/v1/document-versions/${version.id}`, { key: theirs.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/document-versions/${NIL}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/document-versions/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expect((yield* get(`/api/v1/document-versions/${version.id}`, { key: mine.apiKey })).body).toEqual(version)
    }))

  it.effect("document-versions:read is required (403 naming it); 401 without a key; the resource is read-only (405)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const invoice = yield* newInvoice(owner.apiKey, { clientId: (yield* newClient(owner.apiKey)).id, status: "sent" })
      const [version] = yield* versionsOf(owner.apiKey, invoice.id)

      expectError(yield* get("/api/v1/document-versions"), 401, "unauthorized")
      expectError(yield* get(`/api/v1/document-versions/${version.id}`), 401, "unauthorized")

      const invoicesOnly = yield* server.organization(["invoices:read", "invoices:write", "clients:read", "clients:write"])
      for (
        const res of [
          yield* get("/api/v1/document-versions", { key: invoicesOnly.apiKey }),
          yield* get(`/api/v1/document-versions/${NIL}`, { key: invoicesOnly.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("document-versions:read")
      }
      const reader = yield* server.organization(["document-versions:read"])
      const readerList = yield* get("/api/v1/document-versions", { key: reader.apiKey })
      expect(readerList.status).toBe(200)
      expect(readerList.body.data).toEqual([])

      const created = yield* post("/api/v1/document-versions", { documentType: "invoice" }, { key: owner.apiKey })
      expectError(created, 405, "method_not_allowed")
      expect(created.headers.get("allow")).toContain("GET")
      expect(created.headers.get("allow")).not.toContain("POST")
      const patched = yield* patch(`/api/v1/document-versions/${version.id}`, { versionStatus: "voided" }, { key: owner.apiKey })
      expectError(patched, 405, "method_not_allowed")
      expect(patched.headers.get("allow")).toContain("GET")
      expectError(yield* del(`/api/v1/document-versions/${version.id}`, { key: owner.apiKey }), 405, "method_not_allowed")
      expectError(yield* request("PUT", `/api/v1/document-versions/${version.id}`, { key: owner.apiKey, json: {} }), 405, "method_not_allowed")
      expect((yield* get(`/api/v1/document-versions/${version.id}`, { key: owner.apiKey })).body).toEqual(version)
    }))
})
