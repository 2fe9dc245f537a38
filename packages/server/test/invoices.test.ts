import { expect, layer } from "@effect/vitest"
import { created, del, expectError, get, newClient, newContact, newProject, NIL, numberedConcurrently, patch, post, type Response, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/**
 * The server runs on the real clock, not the TestClock of the test services (which stands at 1970):
 * "today" decides default issue dates, overdue and reissue dates.
 */
const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Today, UTC, as the server dates an invoice. */
const today = () => new Date().toISOString().slice(0, 10)

/** A date plus whole days (calendar arithmetic in UTC). */
const plusDays = (date: string, days: number) => {
  const at = new Date(`${date}T00:00:00.000Z`)
  at.setUTCDate(at.getUTCDate() + days)
  return at.toISOString().slice(0, 10)
}

/** One line of 1 × 100.00, described. */
const LINE = { description: "Consulting", quantity: 1, unitPrice: 100 }

const newInvoice = (key: string, body: Record<string, unknown>) => created("/api/v1/invoices", key, { lineItems: [LINE], ...body })

/** Records a cash payment (or a refund, when negative) on an invoice. */
const pay = (key: string, invoice: { id: string; clientId: string }, amount: number) =>
  created("/api/v1/payments", key, { clientId: invoice.clientId, invoiceId: invoice.id, amount, receivedDate: "2026-11-01", method: "cash" })

/** A 400 invalid_payload whose first issue has exactly this path. */
const expectInvalidAt = (res: Response, path: ReadonlyArray<string | number>) => {
  expectError(res, 400, "invalid_request", "invalid_payload")
  expect(Array.isArray(res.body.error.details.issues)).toBe(true)
  expect(res.body.error.details.issues[0].path).toEqual(path)
  expect(typeof res.body.error.details.issues[0].message).toBe("string")
}

/** A 400 linked_record_not_found naming the field. */
const expectUnknownLink = (res: Response, field: string) => {
  expectError(res, 400, "invalid_request", "linked_record_not_found")
  expect(res.body.error.details.field).toBe(field)
}

const ids = (res: Response) => res.body.data.map((i: any) => i.id)

/** The fields of the lines that are copied from invoice to invoice (not their ids). */
const lineContent = (invoice: any) =>
  invoice.lineItems.map((l: any) => ({
    description: l.description,
    quantity: l.quantity,
    unitPrice: l.unitPrice,
    taxable: l.taxable,
    discountPercent: l.discountPercent,
    total: l.total
  }))

layer(TestServerLive, REAL_CLOCK)("invoices: create", (it) => {
  it.effect("a minimal draft takes every default: draft, today, +30 days, USD, INV-0001, no tax", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const day = today()
      const res = yield* post("/api/v1/invoices", {
        clientId: client.id,
        lineItems: [{ description: "Design", quantity: 2, unitPrice: 150.25 }]
      }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        invoiceNumber: "INV-0001",
        clientId: client.id,
        billingContactId: null,
        projectIds: [],
        status: "draft",
        subject: null,
        issueDate: day,
        dueDate: plusDays(day, 30),
        currency: "USD",
        subtotal: 300.5,
        discountAmount: 0,
        taxAmount: 0,
        total: 300.5,
        amountPaid: 0,
        balanceDue: 300.5,
        overdue: false,
        supersedesInvoice: null,
        paymentTerms: null,
        notes: null,
        paidAt: null,
        lineItems: [{
          id: expect.stringMatching(UUID),
          description: "Design",
          quantity: 2,
          unitPrice: 150.25,
          taxable: false,
          discountPercent: null,
          total: 300.5
        }],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.updatedAt).toBe(res.body.createdAt)
      expect((yield* get(`/api/v1/invoices/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
      const second = yield* newInvoice(org.apiKey, { clientId: client.id })
      expect(second.invoiceNumber).toBe("INV-0002")
    }))

  it.effect("a sent invoice with every field given is read back as written", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const p1 = yield* newProject(org.apiKey, client.id, "One")
      const p2 = yield* newProject(org.apiKey, client.id, "Two")
      const res = yield* post("/api/v1/invoices", {
        clientId: client.id,
        billingContactId: contact.id,
        projectIds: [p2.id, p1.id],
        status: "sent",
        subject: "Spring work",
        issueDate: "2026-03-01",
        dueDate: "2026-03-15",
        paymentTerms: "Net 14",
        notes: "Thank you",
        lineItems: [
          { description: "Hours", quantity: 10, unitPrice: 80, taxable: true, discountPercent: 0 },
          { description: "Travel", quantity: 1, unitPrice: 45.5, discountPercent: null }
        ]
      }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        invoiceNumber: "INV-0001",
        clientId: client.id,
        billingContactId: contact.id,
        projectIds: [p2.id, p1.id],
        status: "sent",
        subject: "Spring work",
        issueDate: "2026-03-01",
        dueDate: "2026-03-15",
        currency: "USD",
        subtotal: 845.5,
        discountAmount: 0,
        taxAmount: 0,
        total: 845.5,
        amountPaid: 0,
        balanceDue: 845.5,
        overdue: "2026-03-15" < today(),
        supersedesInvoice: null,
        paymentTerms: "Net 14",
        notes: "Thank you",
        paidAt: null,
        lineItems: [
          { id: expect.stringMatching(UUID), description: "Hours", quantity: 10, unitPrice: 80, taxable: true, discountPercent: 0, total: 800 },
          { id: expect.stringMatching(UUID), description: "Travel", quantity: 1, unitPrice: 45.5, taxable: false, discountPercent: null, total: 45.5 }
        ],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.lineItems[0].id).not.toBe(res.body.lineItems[1].id)
      expect((yield* get(`/api/v1/invoices/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
    }))

  it.effect("the dueDate defaults to issueDate + 30 days when only issueDate is given; explicit status draft is a draft", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const a = yield* newInvoice(org.apiKey, { clientId: client.id, issueDate: "2026-01-15", status: "draft" })
      expect(a).toMatchObject({ issueDate: "2026-01-15", dueDate: "2026-02-14", status: "draft" })
      const leap = yield* newInvoice(org.apiKey, { clientId: client.id, issueDate: "2028-02-10" })
      expect(leap).toMatchObject({ issueDate: "2028-02-10", dueDate: "2028-03-11" })
      const sameDay = yield* newInvoice(org.apiKey, { clientId: client.id, issueDate: "2026-05-05", dueDate: "2026-05-05" })
      expect(sameDay).toMatchObject({ issueDate: "2026-05-05", dueDate: "2026-05-05" })
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: totals", (it) => {
  it.effect("the behaviour doc's example: 8.875% tax, a .5 line, a 12.5% discount", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 8.875, defaultTaxable: true } })
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [
          { description: "Stamps", quantity: 1.5, unitPrice: 0.05 },
          { description: "Prints", quantity: 3, unitPrice: 199.99, discountPercent: 12.5, taxable: false }
        ]
      })
      expect(lineContent(invoice)).toEqual([
        { description: "Stamps", quantity: 1.5, unitPrice: 0.05, taxable: true, discountPercent: null, total: 0.08 },
        { description: "Prints", quantity: 3, unitPrice: 199.99, taxable: false, discountPercent: 12.5, total: 524.97 }
      ])
      expect(invoice).toMatchObject({ subtotal: 600.05, discountAmount: 75, taxAmount: 0.01, total: 525.06, amountPaid: 0, balanceDue: 525.06 })
    }))

  it.effect("half away from zero at exactly .5 of a minor unit: on the gross, on the discount and on the tax", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 5, defaultTaxable: false } })
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [
          // 0.5 × 1¢ = 0.5¢ → 1¢; tax 5% of 1¢ = 0.05¢ → 0
          { description: "a", quantity: 0.5, unitPrice: 0.01, taxable: true },
          // 100¢ gross, 12.5% discount = 12.5¢ → 13¢; line 87¢; not taxable (client default)
          { description: "b", quantity: 1, unitPrice: 1, discountPercent: 12.5 },
          // 10¢, tax 5% = 0.5¢ → 1¢
          { description: "c", quantity: 1, unitPrice: 0.1, taxable: true },
          // 1.5 × 3¢ = 4.5¢ → 5¢
          { description: "d", quantity: 1.5, unitPrice: 0.03 }
        ]
      })
      expect(invoice.lineItems.map((l: any) => [l.taxable, l.total])).toEqual([[true, 0.01], [false, 0.87], [true, 0.1], [false, 0.05]])
      expect(invoice).toMatchObject({ subtotal: 1.16, discountAmount: 0.13, taxAmount: 0.01, total: 1.04, balanceDue: 1.04 })
    }))

  it.effect("quantities with 4 decimals are exact: 0.3333 × 3.00 = 1.00, 1.0001 × 9999.99 = 10000.99", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [
          { description: "third", quantity: 0.3333, unitPrice: 3 },
          { description: "big", quantity: 1.0001, unitPrice: 9999.99 }
        ]
      })
      expect(invoice.lineItems.map((l: any) => l.total)).toEqual([1, 10000.99])
      expect(invoice).toMatchObject({ subtotal: 10001.99, discountAmount: 0, taxAmount: 0, total: 10001.99 })
    }))

  it.effect("a 100% discount makes a line zero; an invoice of only such lines totals 0", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 10, defaultTaxable: true } })
      const mixed = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [
          { description: "Free", quantity: 2, unitPrice: 50, discountPercent: 100 },
          { description: "Paid", quantity: 1, unitPrice: 10 }
        ]
      })
      expect(mixed.lineItems.map((l: any) => l.total)).toEqual([0, 10])
      expect(mixed).toMatchObject({ subtotal: 110, discountAmount: 100, taxAmount: 1, total: 11, balanceDue: 11 })

      const free = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [{ description: "Free", quantity: 3, unitPrice: 33.33, discountPercent: 100 }]
      })
      expect(free).toMatchObject({ status: "draft", subtotal: 99.99, discountAmount: 99.99, taxAmount: 0, total: 0, balanceDue: 0, paidAt: null })
      expect(free.lineItems[0].total).toBe(0)
    }))

  it.effect("a sent invoice whose total is 0 is paid at once, paidAt the moment it was sent", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const before = Date.now()
      const created = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        status: "sent",
        lineItems: [{ description: "Gift", quantity: 1, unitPrice: 0 }]
      })
      expect(created).toMatchObject({ status: "paid", total: 0, amountPaid: 0, balanceDue: 0, overdue: false })
      expect(created.paidAt).toMatch(TIMESTAMP)
      expect(Date.parse(created.paidAt)).toBeGreaterThanOrEqual(before - 1000)
      expect(Date.parse(created.paidAt)).toBeLessThanOrEqual(Date.now() + 1000)

      const draft = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [{ description: "Free", quantity: 1, unitPrice: 20, discountPercent: 100 }]
      })
      expect(draft).toMatchObject({ status: "draft", paidAt: null })
      const sent = yield* patch(`/api/v1/invoices/${draft.id}`, { status: "sent" }, { key: org.apiKey })
      expect(sent.status).toBe(200)
      expect(sent.body).toMatchObject({ status: "paid", balanceDue: 0 })
      expect(sent.body.paidAt).toBe(sent.body.updatedAt)
    }))

  it.effect("an invoice may carry up to 10,000,000,000,000.00: beyond it, by the lines or by their tax, is 400 on lineItems", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const plain = yield* newClient(org.apiKey)
      const taxed = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 10, defaultTaxable: true } })
      const atMax = [
        { description: "Big", quantity: 1, unitPrice: 9_000_000_000_000 },
        { description: "Rest", quantity: 1, unitPrice: 1_000_000_000_000 }
      ]
      const edge = yield* newInvoice(org.apiKey, { clientId: plain.id, lineItems: atMax })
      expect(edge).toMatchObject({ subtotal: 10_000_000_000_000, total: 10_000_000_000_000, balanceDue: 10_000_000_000_000 })
      const overByLines = yield* post("/api/v1/invoices", {
        clientId: plain.id,
        lineItems: [...atMax, { description: "Cent", quantity: 1, unitPrice: 0.01 }]
      }, { key: org.apiKey })
      expectInvalidAt(overByLines, ["lineItems"])
      const overByTax = yield* post("/api/v1/invoices", { clientId: taxed.id, lineItems: atMax }, { key: org.apiKey })
      expectInvalidAt(overByTax, ["lineItems"])
      expect((yield* get("/api/v1/invoices", { key: org.apiKey })).body.pagination.total).toBe(1)
    }))

  it.effect("a line without taxable takes the client's defaultTaxable; the response shows the resolved value", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const taxing = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 10, defaultTaxable: true } })
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: taxing.id,
        lineItems: [
          { description: "Default", quantity: 1, unitPrice: 100 },
          { description: "Exempt", quantity: 1, unitPrice: 50, taxable: false },
          { description: "Explicit", quantity: 1, unitPrice: 20, taxable: true }
        ]
      })
      expect(invoice.lineItems.map((l: any) => l.taxable)).toEqual([true, false, true])
      expect(invoice).toMatchObject({ subtotal: 170, discountAmount: 0, taxAmount: 12, total: 182 })

      const notTaxing = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: true, taxRate: 10, defaultTaxable: false } })
      const other = yield* newInvoice(org.apiKey, {
        clientId: notTaxing.id,
        lineItems: [
          { description: "Default", quantity: 1, unitPrice: 100 },
          { description: "Explicit", quantity: 1, unitPrice: 20, taxable: true }
        ]
      })
      expect(other.lineItems.map((l: any) => l.taxable)).toEqual([false, true])
      expect(other).toMatchObject({ subtotal: 120, taxAmount: 2, total: 122 })
    }))

  it.effect("without overrideTaxRate the organization's default rate (0%) applies, whatever the client's taxRate", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey, { taxSettings: { overrideTaxRate: false, taxRate: 20, defaultTaxable: true } })
      const invoice = yield* newInvoice(org.apiKey, {
        clientId: client.id,
        lineItems: [
          { description: "Taxable", quantity: 1, unitPrice: 100, taxable: true },
          { description: "Default", quantity: 2, unitPrice: 12.34 }
        ]
      })
      expect(invoice.lineItems.map((l: any) => l.taxable)).toEqual([true, true])
      expect(invoice).toMatchObject({ subtotal: 124.68, taxAmount: 0, total: 124.68 })

      const plain = yield* newClient(org.apiKey)
      const untaxed = yield* newInvoice(org.apiKey, {
        clientId: plain.id,
        lineItems: [{ description: "Taxable", quantity: 1, unitPrice: 100, taxable: true }]
      })
      expect(untaxed).toMatchObject({ taxAmount: 0, total: 100 })
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: validation", (it) => {
  it.effect("400 invalid_payload on every bound of a create body, with the issue's path; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const c = client.id
      const line = (extra: Record<string, unknown>) => ({ clientId: c, lineItems: [{ ...LINE, ...extra }] })
      const bad: Array<[unknown, ReadonlyArray<string | number>]> = [
        [{ clientId: c, lineItems: [LINE], subject: "x".repeat(501) }, ["subject"]],
        [{ clientId: c, lineItems: [LINE], paymentTerms: "x".repeat(501) }, ["paymentTerms"]],
        [{ clientId: c, lineItems: [LINE], notes: "x".repeat(5001) }, ["notes"]],
        [line({ description: "" }), ["lineItems", 0, "description"]],
        [line({ description: "x".repeat(501) }), ["lineItems", 0, "description"]],
        [line({ quantity: 0 }), ["lineItems", 0, "quantity"]],
        [line({ quantity: -1 }), ["lineItems", 0, "quantity"]],
        [line({ quantity: 1.00001 }), ["lineItems", 0, "quantity"]],
        [line({ quantity: 1_000_001 }), ["lineItems", 0, "quantity"]],
        [line({ unitPrice: -0.01 }), ["lineItems", 0, "unitPrice"]],
        [line({ unitPrice: 1.001 }), ["lineItems", 0, "unitPrice"]],
        [line({ discountPercent: 101 }), ["lineItems", 0, "discountPercent"]],
        [line({ discountPercent: -1 }), ["lineItems", 0, "discountPercent"]],
        [line({ discountPercent: 12.34567 }), ["lineItems", 0, "discountPercent"]],
        [line({ taxable: "yes" }), ["lineItems", 0, "taxable"]],
        [line({ colour: "red" }), ["lineItems", 0, "colour"]],
        [{ clientId: c, lineItems: [LINE, { ...LINE, quantity: 0 }] }, ["lineItems", 1, "quantity"]],
        [{ clientId: c, lineItems: [] }, ["lineItems"]],
        [{ clientId: c }, ["lineItems"]],
        [{ lineItems: [LINE] }, ["clientId"]],
        [{ clientId: "not-a-uuid", lineItems: [LINE] }, ["clientId"]],
        [{ clientId: c, lineItems: [LINE], foo: 1 }, ["foo"]],
        [{ clientId: c, lineItems: [LINE], invoiceNumber: "INV-9999" }, ["invoiceNumber"]],
        [{ clientId: c, lineItems: [LINE], total: 100 }, ["total"]],
        [{ clientId: c, lineItems: [LINE], currency: "USD" }, ["currency"]],
        [{ clientId: c, lineItems: [LINE], supersedesInvoice: NIL }, ["supersedesInvoice"]],
        [{ clientId: c, lineItems: [LINE], status: "paid" }, ["status"]],
        [{ clientId: c, lineItems: [LINE], status: "void" }, ["status"]],
        [{ clientId: c, lineItems: [LINE], status: "written_off" }, ["status"]],
        [{ clientId: c, lineItems: [LINE], issueDate: "2026-02-30" }, ["issueDate"]],
        [{ clientId: c, lineItems: [LINE], issueDate: "2026-02-02", dueDate: "2026-02-01" }, ["dueDate"]]
      ]
      for (const [body, path] of bad) {
        expectInvalidAt(yield* post("/api/v1/invoices", body, { key: org.apiKey }), path)
      }
      expectInvalidAt(yield* post("/api/v1/invoices", { clientId: c, lineItems: Array.from({ length: 501 }, () => LINE) }, { key: org.apiKey }), ["lineItems"])
      // dueDate alone, before today's default issueDate
      expectInvalidAt(yield* post("/api/v1/invoices", { clientId: c, lineItems: [LINE], dueDate: "2020-01-01" }, { key: org.apiKey }), ["dueDate"])
      expect((yield* get("/api/v1/invoices", { key: org.apiKey })).body.pagination.total).toBe(0)

      // The bounds themselves are accepted; the number series was not consumed by the refusals.
      const edge = yield* newInvoice(org.apiKey, {
        clientId: c,
        subject: "s".repeat(500),
        paymentTerms: "p".repeat(500),
        notes: "n".repeat(5000),
        lineItems: [
          { description: "d".repeat(500), quantity: 0.0001, unitPrice: 0, discountPercent: 100 },
          { description: "x", quantity: 1_000_000, unitPrice: 0.01, discountPercent: 0 },
          { description: "y", quantity: 1, unitPrice: 10, discountPercent: 12.3456 }
        ]
      })
      expect(edge.invoiceNumber).toBe("INV-0001")
      expect(edge.lineItems.map((l: any) => l.total)).toEqual([0, 10000, 8.77])
      expect((yield* get("/api/v1/invoices", { key: org.apiKey })).body.pagination.total).toBe(1)
    }))

  it.effect("a client of another organization, or an unknown one, cannot be invoiced (400 linked_record_not_found on clientId)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = yield* newClient(theirs.apiKey)
      expectUnknownLink(yield* post("/api/v1/invoices", { clientId: theirClient.id, lineItems: [LINE] }, { key: mine.apiKey }), "clientId")
      expectUnknownLink(yield* post("/api/v1/invoices", { clientId: NIL, lineItems: [LINE] }, { key: mine.apiKey }), "clientId")
      expect((yield* get("/api/v1/invoices", { key: mine.apiKey })).body.pagination.total).toBe(0)
      expect((yield* get("/api/v1/invoices", { key: theirs.apiKey })).body.pagination.total).toBe(0)
    }))

  it.effect("billingContactId must be a contact of the invoice's client", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      const client = yield* newClient(org.apiKey)
      const sibling = yield* newClient(org.apiKey, { name: "Sibling" })
      const own = yield* newContact(org.apiKey, client.id)
      const siblings = yield* newContact(org.apiKey, sibling.id)
      const foreign = yield* newContact(other.apiKey, (yield* newClient(other.apiKey)).id)
      const body = (billingContactId: string) => ({ clientId: client.id, lineItems: [LINE], billingContactId })

      expectUnknownLink(yield* post("/api/v1/invoices", body(NIL), { key: org.apiKey }), "billingContactId")
      expectUnknownLink(yield* post("/api/v1/invoices", body(foreign.id), { key: org.apiKey }), "billingContactId")
      expectInvalidAt(yield* post("/api/v1/invoices", body(siblings.id), { key: org.apiKey }), ["billingContactId"])
      expectInvalidAt(yield* post("/api/v1/invoices", body("nope"), { key: org.apiKey }), ["billingContactId"])
      expect((yield* get("/api/v1/invoices", { key: org.apiKey })).body.pagination.total).toBe(0)

      const ok = yield* newInvoice(org.apiKey, body(own.id))
      expect(ok.billingContactId).toBe(own.id)
      const nulled = yield* newInvoice(org.apiKey, { clientId: client.id, billingContactId: null })
      expect(nulled.billingContactId).toBeNull()

      // The same rules hold for PATCH.
      const path = `/api/v1/invoices/${ok.id}`
      expectUnknownLink(yield* patch(path, { billingContactId: NIL }, { key: org.apiKey }), "billingContactId")
      expectUnknownLink(yield* patch(path, { billingContactId: foreign.id }, { key: org.apiKey }), "billingContactId")
      expectInvalidAt(yield* patch(path, { billingContactId: siblings.id }, { key: org.apiKey }), ["billingContactId"])
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(ok)
      const cleared = yield* patch(path, { billingContactId: null }, { key: org.apiKey })
      expect(cleared.status).toBe(200)
      expect(cleared.body.billingContactId).toBeNull()
    }))

  it.effect("projectIds: projects of the same client, at most 50, no duplicates", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      const client = yield* newClient(org.apiKey)
      const sibling = yield* newClient(org.apiKey, { name: "Sibling" })
      const own = yield* newProject(org.apiKey, client.id, "Own")
      const own2 = yield* newProject(org.apiKey, client.id, "Own 2")
      const siblings = yield* newProject(org.apiKey, sibling.id, "Sibling's")
      const foreign = yield* newProject(other.apiKey, (yield* newClient(other.apiKey)).id, "Foreign")
      const body = (projectIds: ReadonlyArray<string>) => ({ clientId: client.id, lineItems: [LINE], projectIds })

      expectUnknownLink(yield* post("/api/v1/invoices", body([NIL]), { key: org.apiKey }), "projectIds")
      expectUnknownLink(yield* post("/api/v1/invoices", body([own.id, foreign.id]), { key: org.apiKey }), "projectIds")
      const wrongClient = yield* post("/api/v1/invoices", body([own.id, siblings.id]), { key: org.apiKey })
      expectError(wrongClient, 400, "invalid_request", "invalid_payload")
      expect(wrongClient.body.error.details.issues[0].path[0]).toBe("projectIds")
      const twice = yield* post("/api/v1/invoices", body([own.id, own.id]), { key: org.apiKey })
      expectError(twice, 400, "invalid_request", "invalid_payload")
      expect(twice.body.error.details.issues[0].path[0]).toBe("projectIds")
      const many = yield* post("/api/v1/invoices", body(Array.from({ length: 51 }, () => randomUUID())), { key: org.apiKey })
      expectError(many, 400, "invalid_request", "invalid_payload")
      expect(many.body.error.details.issues[0].path[0]).toBe("projectIds")
      const malformed = yield* post("/api/v1/invoices", body(["abc"]), { key: org.apiKey })
      expectError(malformed, 400, "invalid_request", "invalid_payload")
      expect(malformed.body.error.details.issues[0].path[0]).toBe("projectIds")
      expect((yield* get("/api/v1/invoices", { key: org.apiKey })).body.pagination.total).toBe(0)

      const ok = yield* newInvoice(org.apiKey, body([own2.id, own.id]))
      expect(ok.projectIds).toEqual([own2.id, own.id])
      const path = `/api/v1/invoices/${ok.id}`
      const wrongPatch = yield* patch(path, { projectIds: [siblings.id] }, { key: org.apiKey })
      expectError(wrongPatch, 400, "invalid_request", "invalid_payload")
      expect(wrongPatch.body.error.details.issues[0].path[0]).toBe("projectIds")
      expectUnknownLink(yield* patch(path, { projectIds: [foreign.id] }, { key: org.apiKey }), "projectIds")
      expect((yield* get(path, { key: org.apiKey })).body.projectIds).toEqual([own2.id, own.id])
      const emptied = yield* patch(path, { projectIds: [] }, { key: org.apiKey })
      expect(emptied.status).toBe(200)
      expect(emptied.body.projectIds).toEqual([])
      const set = yield* patch(path, { projectIds: [own.id] }, { key: org.apiKey })
      expect(set.body.projectIds).toEqual([own.id])
      expect((yield* get(path, { key: org.apiKey })).body.projectIds).toEqual([own.id])
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: numbering", (it) => {
  it.effect("20 concurrent creations get 20 distinct consecutive numbers; another organization's series is its own", () =>
    Effect.gen(function*() {
      const { server, a, b, clientA, clientB } = yield* numberedConcurrently({
        path: "/api/v1/invoices",
        body: (clientId) => ({ clientId, lineItems: [LINE] }),
        field: "invoiceNumber",
        prefix: "INV"
      })
      expect((yield* newInvoice(a.apiKey, { clientId: clientA.id })).invoiceNumber).toBe("INV-0021")
      expect((yield* newInvoice(b.apiKey, { clientId: clientB.id })).invoiceNumber).toBe("INV-0021")
      const c = yield* server.organization()
      expect((yield* newInvoice(c.apiKey, { clientId: (yield* newClient(c.apiKey)).id })).invoiceNumber).toBe("INV-0001")
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: read", (it) => {
  it.effect("list filters clientId, status, overdue and pages, newest first", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const a = yield* newClient(key, { name: "A" })
      const b = yield* newClient(key, { name: "B" })
      const past = { issueDate: "2020-01-01", dueDate: "2020-01-31" }
      const day = today()
      const i1 = yield* newInvoice(key, { clientId: a.id, ...past })
      const i2 = yield* newInvoice(key, { clientId: a.id, status: "sent", ...past })
      const i3 = yield* newInvoice(key, { clientId: b.id, status: "sent" })
      const i4 = yield* newInvoice(key, { clientId: a.id, status: "sent", ...past })
      yield* pay(key, i4, 100)
      const i5 = yield* newInvoice(key, { clientId: b.id, status: "sent", ...past })
      yield* pay(key, i5, 40)
      const i6 = yield* newInvoice(key, { clientId: a.id, status: "sent", issueDate: day, dueDate: day })
      const i7 = yield* newInvoice(key, { clientId: b.id, status: "sent", ...past })
      expect((yield* patch(`/api/v1/invoices/${i7.id}`, { status: "void" }, { key })).status).toBe(200)

      const read = (id: string) => Effect.map(get(`/api/v1/invoices/${id}`, { key }), (r) => r.body)
      expect(yield* read(i1.id)).toMatchObject({ status: "draft", overdue: false })
      expect(yield* read(i2.id)).toMatchObject({ status: "sent", overdue: true, balanceDue: 100 })
      expect(yield* read(i3.id)).toMatchObject({ status: "sent", overdue: false })
      expect(yield* read(i4.id)).toMatchObject({ status: "paid", overdue: false, amountPaid: 100, balanceDue: 0 })
      expect(yield* read(i5.id)).toMatchObject({ status: "sent", overdue: true, amountPaid: 40, balanceDue: 60 })
      expect(yield* read(i6.id)).toMatchObject({ status: "sent", overdue: false })
      expect(yield* read(i7.id)).toMatchObject({ status: "void", overdue: false })

      const all = yield* get("/api/v1/invoices", { key })
      expect(all.status).toBe(200)
      expect(ids(all)).toEqual([i7.id, i6.id, i5.id, i4.id, i3.id, i2.id, i1.id])
      expect(all.body.pagination).toEqual({ page: 1, pageSize: 25, total: 7, totalPages: 1, hasMore: false })
      const list = (query: string) => Effect.map(get(`/api/v1/invoices?${query}`, { key }), ids)
      expect(yield* list(`clientId=${a.id}`)).toEqual([i6.id, i4.id, i2.id, i1.id])
      expect(yield* list(`clientId=${b.id}`)).toEqual([i7.id, i5.id, i3.id])
      expect(yield* list(`clientId=${NIL}`)).toEqual([])
      expect(yield* list("status=draft")).toEqual([i1.id])
      expect(yield* list("status=sent")).toEqual([i6.id, i5.id, i3.id, i2.id])
      expect(yield* list("status=paid")).toEqual([i4.id])
      expect(yield* list("status=void")).toEqual([i7.id])
      expect(yield* list("status=written_off")).toEqual([])
      expect(yield* list("overdue=true")).toEqual([i5.id, i2.id])
      expect(yield* list("overdue=false")).toEqual([i7.id, i6.id, i4.id, i3.id, i1.id])
      expect(yield* list(`overdue=true&clientId=${a.id}`)).toEqual([i2.id])
      expect(yield* list(`status=sent&clientId=${b.id}&overdue=false`)).toEqual([i3.id])
      const overdue = yield* get("/api/v1/invoices?overdue=true", { key })
      for (const invoice of overdue.body.data) expect(invoice.overdue).toBe(true)

      const page2 = yield* get("/api/v1/invoices?pageSize=3&page=2", { key })
      expect(ids(page2)).toEqual([i4.id, i3.id, i2.id])
      expect(page2.body.pagination).toEqual({ page: 2, pageSize: 3, total: 7, totalPages: 3, hasMore: true })
      const past9 = yield* get("/api/v1/invoices?pageSize=3&page=9", { key })
      expect(past9.body).toEqual({ data: [], pagination: { page: 9, pageSize: 3, total: 7, totalPages: 3, hasMore: false } })
      const sentPage = yield* get("/api/v1/invoices?status=sent&pageSize=1&page=4", { key })
      expect(ids(sentPage)).toEqual([i2.id])
      expect(sentPage.body.pagination).toEqual({ page: 4, pageSize: 1, total: 4, totalPages: 4, hasMore: false })

      expect(yield* list("updatedSince=2099-01-01T00:00:00.000Z")).toEqual([])
      expect((yield* get("/api/v1/invoices?updatedSince=2000-01-01T00:00:00.000Z", { key })).body.pagination.total).toBe(7)

      for (
        const query of [
          "overdue=yes",
          "overdue=1",
          "overdue=",
          "status=bogus",
          "status=PAID",
          "clientId=abc",
          "supersedesInvoice=abc",
          "pageSize=0",
          "pageSize=101",
          "page=0",
          "updatedSince=yesterday"
        ]
      ) {
        expectError(yield* get(`/api/v1/invoices?${query}`, { key }), 400, "invalid_request")
      }
    }))

  it.effect("get: another organization's invoice, an unknown id and a malformed id are 404; lists never show other organizations'", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = yield* newClient(theirs.apiKey)
      const theirInvoice = yield* newInvoice(theirs.apiKey, { clientId: theirClient.id, status: "sent" })

      expectError(yield* get(`/api/v1/invoices/${theirInvoice.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/invoices/${theirInvoice.id}`, { notes: "mine" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/invoices/${theirInvoice.id}`, { status: "void" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/invoices/${theirInvoice.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/invoices/${NIL}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/invoices/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch("/api/v1/invoices/not-a-uuid", { notes: "x" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del("/api/v1/invoices/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expectError(yield* post("/api/v1/invoices/not-a-uuid/reissue", {}, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/invoices", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/invoices?clientId=${theirClient.id}`, { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/invoices/${theirInvoice.id}`, { key: theirs.apiKey })).body).toEqual(theirInvoice)
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: moves", (it) => {
  it.effect("draft → sent by PATCH; PATCH sent on a sent invoice is a no-op", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const draft = yield* newInvoice(org.apiKey, { clientId: client.id })
      const path = `/api/v1/invoices/${draft.id}`
      const sent = yield* patch(path, { status: "sent" }, { key: org.apiKey })
      expect(sent.status).toBe(200)
      expect(sent.body).toEqual({ ...draft, status: "sent", updatedAt: expect.stringMatching(TIMESTAMP) })
      expect(Date.parse(sent.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(draft.updatedAt))
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(sent.body)

      const again = yield* patch(path, { status: "sent" }, { key: org.apiKey })
      expect(again.status).toBe(200)
      expect(again.body).toEqual(sent.body)
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(sent.body)
    }))

  it.effect("sending a draft whose due date has passed makes it overdue", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const draft = yield* newInvoice(org.apiKey, { clientId: client.id, issueDate: "2020-01-01", dueDate: "2020-01-31" })
      expect(draft.overdue).toBe(false)
      const sent = yield* patch(`/api/v1/invoices/${draft.id}`, { status: "sent" }, { key: org.apiKey })
      expect(sent.body).toMatchObject({ status: "sent", overdue: true })
    }))

  it.effect("void a draft", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const draft = yield* newInvoice(org.apiKey, { clientId: client.id })
      const voided = yield* patch(`/api/v1/invoices/${draft.id}`, { status: "void" }, { key: org.apiKey })
      expect(voided.status).toBe(200)
      expect(voided.body).toEqual({ ...draft, status: "void", updatedAt: expect.stringMatching(TIMESTAMP) })
    }))

  it.effect("void a sent invoice that has no money on it", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const sent = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent", issueDate: "2020-01-01", dueDate: "2020-01-31" })
      expect(sent.overdue).toBe(true)
      const voided = yield* patch(`/api/v1/invoices/${sent.id}`, { status: "void" }, { key: org.apiKey })
      expect(voided.status).toBe(200)
      expect(voided.body).toEqual({ ...sent, status: "void", overdue: false, updatedAt: expect.stringMatching(TIMESTAMP) })
      expect((yield* get(`/api/v1/invoices/${sent.id}`, { key: org.apiKey })).body).toEqual(voided.body)
    }))

  it.effect("void of a sent invoice with money on it is 409, mentioning a refund; after a full refund it can be voided", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const sent = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent" })
      const payment = yield* pay(org.apiKey, sent, 30)
      const path = `/api/v1/invoices/${sent.id}`
      const before = (yield* get(path, { key: org.apiKey })).body
      expect(before).toMatchObject({ status: "sent", amountPaid: 30, balanceDue: 70 })
      const refused = yield* patch(path, { status: "void" }, { key: org.apiKey })
      expectError(refused, 409, "conflict")
      expect(refused.body.error.message).toMatch(/refund/i)
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(before)

      const refund = yield* post("/api/v1/payments", {
        clientId: client.id,
        invoiceId: sent.id,
        amount: -30,
        receivedDate: "2026-11-02",
        method: "cash",
        kind: "refund",
        refundOfId: payment.id
      }, { key: org.apiKey })
      expect(refund.status).toBe(201)
      const voided = yield* patch(path, { status: "void" }, { key: org.apiKey })
      expect(voided.status).toBe(200)
      expect(voided.body).toMatchObject({ status: "void", amountPaid: 0 })
    }))

  it.effect("a paid invoice cannot be sent again or voided (409)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const sent = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent" })
      yield* pay(org.apiKey, sent, 100)
      const path = `/api/v1/invoices/${sent.id}`
      const paid = (yield* get(path, { key: org.apiKey })).body
      expect(paid).toMatchObject({ status: "paid", balanceDue: 0, paidAt: expect.stringMatching(TIMESTAMP) })
      const voiding = yield* patch(path, { status: "void" }, { key: org.apiKey })
      expectError(voiding, 409, "conflict")
      expect(voiding.body.error.message).toMatch(/refund/i)
      expectError(yield* patch(path, { status: "sent" }, { key: org.apiKey }), 409, "conflict")
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(paid)
    }))

  it.effect("any PATCH of a void invoice is 409, and changes nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const invoice = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent" })
      const path = `/api/v1/invoices/${invoice.id}`
      const voided = (yield* patch(path, { status: "void" }, { key: org.apiKey })).body
      expect(voided.status).toBe("void")
      for (const body of [{ notes: "x" }, { subject: "Again" }, { status: "sent" }, { status: "void" }, { projectIds: [] }, { dueDate: "2030-01-01" }]) {
        expectError(yield* patch(path, body, { key: org.apiKey }), 409, "conflict")
      }
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(voided)
    }))

  it.effect("PATCH status paid, written_off or draft is 400 on status; lineItems, clientId and read-only fields are 400", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const other = yield* newClient(org.apiKey, { name: "Other" })
      for (const start of ["draft", "sent"] as const) {
        const invoice = yield* newInvoice(org.apiKey, { clientId: client.id, status: start })
        const path = `/api/v1/invoices/${invoice.id}`
        const bad: Array<[unknown, ReadonlyArray<string | number>]> = [
          [{ status: "paid" }, ["status"]],
          [{ status: "written_off" }, ["status"]],
          [{ status: "draft" }, ["status"]],
          [{ status: "bogus" }, ["status"]],
          [{ lineItems: [LINE] }, ["lineItems"]],
          [{ clientId: other.id }, ["clientId"]],
          [{ invoiceNumber: "INV-0099" }, ["invoiceNumber"]],
          [{ total: 1 }, ["total"]],
          [{ amountPaid: 1 }, ["amountPaid"]],
          [{ currency: "EUR" }, ["currency"]],
          [{ supersedesInvoice: NIL }, ["supersedesInvoice"]],
          [{ subject: "x".repeat(501) }, ["subject"]],
          [{ paymentTerms: "x".repeat(501) }, ["paymentTerms"]],
          [{ notes: "x".repeat(5001) }, ["notes"]],
          [{ dueDate: "2026-02-30" }, ["dueDate"]],
          [{ issueDate: "2026-03-02", dueDate: "2026-03-01" }, ["dueDate"]],
          [{ notes: "ok", foo: 1 }, ["foo"]]
        ]
        for (const [body, p] of bad) {
          expectInvalidAt(yield* patch(path, body, { key: org.apiKey }), p)
        }
        // A due date before the stored issue date, and an issue date after the stored due date.
        expectInvalidAt(yield* patch(path, { dueDate: plusDays(invoice.issueDate, -1) }, { key: org.apiKey }), ["dueDate"])
        const late = yield* patch(path, { issueDate: plusDays(invoice.dueDate, 1) }, { key: org.apiKey })
        expectError(late, 400, "invalid_request", "invalid_payload")
        expect(["issueDate", "dueDate"]).toContain(late.body.error.details.issues[0].path[0])
        expect((yield* get(path, { key: org.apiKey })).body).toEqual(invoice)
      }
    }))

  it.effect("subject, notes, paymentTerms, dates, billing contact and projects can be edited on a draft, a sent and a paid invoice", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const contact = yield* newContact(org.apiKey, client.id)
      const project = yield* newProject(org.apiKey, client.id)
      const draft = yield* newInvoice(org.apiKey, { clientId: client.id })
      const sent = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent" })
      const toPay = yield* newInvoice(org.apiKey, { clientId: client.id, status: "sent" })
      yield* pay(org.apiKey, toPay, 100)
      const paid = (yield* get(`/api/v1/invoices/${toPay.id}`, { key: org.apiKey })).body
      expect(paid.status).toBe("paid")
      const edits = {
        subject: "Edited",
        notes: "New notes",
        paymentTerms: "Net 7",
        issueDate: "2026-04-01",
        dueDate: "2026-04-08",
        billingContactId: contact.id,
        projectIds: [project.id]
      }
      for (const invoice of [draft, sent, paid]) {
        const path = `/api/v1/invoices/${invoice.id}`
        const res = yield* patch(path, edits, { key: org.apiKey })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({
          ...invoice,
          ...edits,
          overdue: res.body.overdue,
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
        expect(res.body.status).toBe(invoice.status)
        expect(res.body.paidAt).toBe(invoice.paidAt)
        expect((yield* get(path, { key: org.apiKey })).body).toEqual(res.body)
        const cleared = yield* patch(path, { subject: null, notes: null, paymentTerms: null, billingContactId: null }, { key: org.apiKey })
        expect(cleared.status).toBe(200)
        expect(cleared.body).toMatchObject({ subject: null, notes: null, paymentTerms: null, billingContactId: null, status: invoice.status })
      }
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: delete", (it) => {
  it.effect("a draft is deleted (204), then gone; sent, void and paid ones are 409 invoice_not_deletable", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const draft = yield* newInvoice(key, { clientId: client.id })
      const sent = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      const voided = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      expect((yield* patch(`/api/v1/invoices/${voided.id}`, { status: "void" }, { key })).status).toBe(200)
      const paid = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      yield* pay(key, paid, 100)
      const partly = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      yield* pay(key, partly, 1)

      const removed = yield* del(`/api/v1/invoices/${draft.id}`, { key })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/invoices/${draft.id}`, { key }), 404, "not_found")
      expectError(yield* del(`/api/v1/invoices/${draft.id}`, { key }), 404, "not_found")
      expectError(yield* patch(`/api/v1/invoices/${draft.id}`, { notes: "x" }, { key }), 404, "not_found")
      expect(ids(yield* get("/api/v1/invoices", { key }))).not.toContain(draft.id)

      for (const invoice of [sent, voided, paid, partly]) {
        const before = (yield* get(`/api/v1/invoices/${invoice.id}`, { key })).body
        expectError(yield* del(`/api/v1/invoices/${invoice.id}`, { key }), 409, "conflict", "invoice_not_deletable")
        expect((yield* get(`/api/v1/invoices/${invoice.id}`, { key })).body).toEqual(before)
      }
      expect((yield* get("/api/v1/invoices", { key })).body.pagination.total).toBe(4)
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: reissue", (it) => {
  it.effect("a sent invoice without money: it becomes void, the new draft supersedes it with its lines, a new number and the same term", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key, { taxSettings: { overrideTaxRate: true, taxRate: 10, defaultTaxable: false } })
      const contact = yield* newContact(key, client.id)
      const project = yield* newProject(key, client.id)
      const original = yield* newInvoice(key, {
        clientId: client.id,
        status: "sent",
        billingContactId: contact.id,
        projectIds: [project.id],
        subject: "Original",
        paymentTerms: "Net 14",
        notes: "Notes",
        issueDate: "2026-01-10",
        dueDate: "2026-01-24",
        lineItems: [
          { description: "Work", quantity: 2.5, unitPrice: 40, taxable: true, discountPercent: 10 },
          { description: "Extra", quantity: 1, unitPrice: 5 }
        ]
      })
      expect(original).toMatchObject({ invoiceNumber: "INV-0001", subtotal: 105, discountAmount: 10, taxAmount: 9, total: 104 })
      const day = today()
      const res = yield* post(`/api/v1/invoices/${original.id}/reissue`, {}, { key })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        invoiceNumber: "INV-0002",
        clientId: client.id,
        billingContactId: contact.id,
        projectIds: [project.id],
        status: "draft",
        subject: "Original",
        issueDate: day,
        dueDate: plusDays(day, 14),
        currency: "USD",
        subtotal: 105,
        discountAmount: 10,
        taxAmount: 9,
        total: 104,
        amountPaid: 0,
        balanceDue: 104,
        overdue: false,
        supersedesInvoice: original.id,
        paymentTerms: "Net 14",
        notes: "Notes",
        paidAt: null,
        lineItems: [
          { id: expect.stringMatching(UUID), ...lineContent(original)[0] },
          { id: expect.stringMatching(UUID), ...lineContent(original)[1] }
        ],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.id).not.toBe(original.id)
      const old = (yield* get(`/api/v1/invoices/${original.id}`, { key })).body
      expect(old).toEqual({ ...original, status: "void", overdue: false, updatedAt: expect.stringMatching(TIMESTAMP) })
      expect((yield* get(`/api/v1/invoices/${res.body.id}`, { key })).body).toEqual(res.body)

      const replacing = yield* get(`/api/v1/invoices?supersedesInvoice=${original.id}`, { key })
      expect(replacing.status).toBe(200)
      expect(replacing.body.data).toEqual([res.body])
      expect((yield* get(`/api/v1/invoices?supersedesInvoice=${res.body.id}`, { key })).body.data).toEqual([])
      expect((yield* get(`/api/v1/invoices?supersedesInvoice=${NIL}`, { key })).body.data).toEqual([])
    }))

  it.effect("overrides replace what is copied: new lines change the totals; a new issueDate keeps the term", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const original = yield* newInvoice(key, {
        clientId: client.id,
        status: "sent",
        subject: "Before",
        notes: "Keep",
        issueDate: "2026-02-01",
        dueDate: "2026-02-11"
      })
      const res = yield* post(`/api/v1/invoices/${original.id}/reissue`, {
        lineItems: [
          { description: "Corrected", quantity: 3, unitPrice: 19.99 },
          { description: "Credit", quantity: 1, unitPrice: 10, discountPercent: 50 }
        ],
        subject: "After",
        paymentTerms: "Due on receipt",
        issueDate: "2026-03-01"
      }, { key })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({
        status: "draft",
        supersedesInvoice: original.id,
        subject: "After",
        notes: "Keep",
        paymentTerms: "Due on receipt",
        issueDate: "2026-03-01",
        dueDate: "2026-03-11",
        subtotal: 69.97,
        discountAmount: 5,
        taxAmount: 0,
        total: 64.97,
        balanceDue: 64.97
      })
      expect(res.body.lineItems.map((l: any) => [l.description, l.total])).toEqual([["Corrected", 59.97], ["Credit", 5]])

      const second = yield* newInvoice(key, { clientId: client.id, status: "sent", issueDate: "2026-05-01", dueDate: "2026-05-31" })
      const explicit = yield* post(`/api/v1/invoices/${second.id}/reissue`, { dueDate: "2099-12-31", notes: null }, { key })
      expect(explicit.status).toBe(201)
      expect(explicit.body).toMatchObject({ issueDate: today(), dueDate: "2099-12-31", notes: null, total: 100 })
    }))

  it.effect("reissue validates its body: unknown fields, status, bad lines and dates are 400, and nothing changes", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const original = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      const path = `/api/v1/invoices/${original.id}/reissue`
      const bad: Array<[unknown, ReadonlyArray<string | number>]> = [
        [{ status: "sent" }, ["status"]],
        [{ clientId: client.id }, ["clientId"]],
        [{ foo: 1 }, ["foo"]],
        [{ lineItems: [] }, ["lineItems"]],
        [{ lineItems: [{ ...LINE, quantity: 0 }] }, ["lineItems", 0, "quantity"]],
        [{ issueDate: "2026-02-02", dueDate: "2026-02-01" }, ["dueDate"]]
      ]
      for (const [body, p] of bad) expectInvalidAt(yield* post(path, body, { key }), p)
      expect((yield* get(`/api/v1/invoices/${original.id}`, { key })).body).toEqual(original)
      expect((yield* get("/api/v1/invoices", { key })).body.pagination.total).toBe(1)
    }))

  it.effect("a reissue whose copy is refused (a bad override) leaves the original sent: one transaction", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const sibling = yield* newClient(key, { name: "Sibling" })
      const siblingsContact = yield* newContact(key, sibling.id)
      const original = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      const path = `/api/v1/invoices/${original.id}/reissue`
      expectInvalidAt(yield* post(path, { billingContactId: siblingsContact.id }, { key }), ["billingContactId"])
      expectUnknownLink(yield* post(path, { billingContactId: NIL }, { key }), "billingContactId")
      expectUnknownLink(yield* post(path, { projectIds: [NIL] }, { key }), "projectIds")
      expect((yield* get(`/api/v1/invoices/${original.id}`, { key })).body).toEqual(original)
      expect((yield* get("/api/v1/invoices", { key })).body.pagination.total).toBe(1)
      const res = yield* post(path, {}, { key })
      expect(res.status).toBe(201)
      expect(res.body.invoiceNumber).toBe("INV-0002")
    }))

  it.effect("a void invoice is reissued without voiding it again; a second reissue is 409", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const original = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      const voided = (yield* patch(`/api/v1/invoices/${original.id}`, { status: "void" }, { key })).body
      expect(voided.status).toBe("void")
      const res = yield* post(`/api/v1/invoices/${original.id}/reissue`, {}, { key })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ status: "draft", supersedesInvoice: original.id, invoiceNumber: "INV-0002", total: 100 })
      expect((yield* get(`/api/v1/invoices/${original.id}`, { key })).body).toEqual(voided)

      const again = yield* post(`/api/v1/invoices/${original.id}/reissue`, {}, { key })
      expectError(again, 409, "conflict")
      expect((yield* get(`/api/v1/invoices?supersedesInvoice=${original.id}`, { key })).body.data).toEqual([res.body])
      expect((yield* get("/api/v1/invoices", { key })).body.pagination.total).toBe(2)

      // The same after a reissue of a sent invoice: the second attempt is refused.
      const sent = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      expect((yield* post(`/api/v1/invoices/${sent.id}/reissue`, {}, { key })).status).toBe(201)
      expectError(yield* post(`/api/v1/invoices/${sent.id}/reissue`, {}, { key }), 409, "conflict")
      expect((yield* get(`/api/v1/invoices?supersedesInvoice=${sent.id}`, { key })).body.data).toHaveLength(1)
    }))

  it.effect("a draft, a paid invoice and a sent one with money cannot be reissued (409); nothing changes", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const client = yield* newClient(key)
      const draft = yield* newInvoice(key, { clientId: client.id })
      const paid = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      yield* pay(key, paid, 100)
      const partly = yield* newInvoice(key, { clientId: client.id, status: "sent" })
      yield* pay(key, partly, 50)
      for (const invoice of [draft, paid, partly]) {
        const before = (yield* get(`/api/v1/invoices/${invoice.id}`, { key })).body
        expectError(yield* post(`/api/v1/invoices/${invoice.id}/reissue`, {}, { key }), 409, "conflict")
        expect((yield* get(`/api/v1/invoices/${invoice.id}`, { key })).body).toEqual(before)
      }
      expect((yield* get("/api/v1/invoices", { key })).body.pagination.total).toBe(3)
    }))

  it.effect("another organization's invoice, or an unknown one, cannot be reissued (404)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirInvoice = yield* newInvoice(theirs.apiKey, { clientId: (yield* newClient(theirs.apiKey)).id, status: "sent" })
      expectError(yield* post(`/api/v1/invoices/${theirInvoice.id}/reissue`, {}, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* post(`/api/v1/invoices/${NIL}/reissue`, {}, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get(`/api/v1/invoices/${theirInvoice.id}`, { key: theirs.apiKey })).body).toEqual(theirInvoice)
      expect((yield* get("/api/v1/invoices", { key: mine.apiKey })).body.pagination.total).toBe(0)
    }))
})

layer(TestServerLive, REAL_CLOCK)("invoices: access", (it) => {
  it.effect("401 without or with a bad key; 403 without the invoices scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const client = yield* newClient(owner.apiKey)
      const invoice = yield* newInvoice(owner.apiKey, { clientId: client.id, status: "sent" })
      const body = { clientId: client.id, lineItems: [LINE] }

      const missing = yield* get("/api/v1/invoices")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/invoices", body), 401, "unauthorized")
      expectError(yield* get(`/api/v1/invoices/${invoice.id}`), 401, "unauthorized")
      expectError(yield* patch(`/api/v1/invoices/${invoice.id}`, { notes: "x" }), 401, "unauthorized")
      expectError(yield* del(`/api/v1/invoices/${invoice.id}`), 401, "unauthorized")
      expectError(yield* post(`/api/v1/invoices/${invoice.id}/reissue`, {}), 401, "unauthorized")
      expectError(yield* post("/api/v1/invoices", body, { key: "bok_nope" }), 401, "unauthorized")

      const reader = yield* server.organization(["invoices:read", "clients:write"])
      expect((yield* get("/api/v1/invoices", { key: reader.apiKey })).status).toBe(200)
      const readerClient = yield* newClient(reader.apiKey)
      for (
        const res of [
          yield* post("/api/v1/invoices", { clientId: readerClient.id, lineItems: [LINE] }, { key: reader.apiKey }),
          yield* patch(`/api/v1/invoices/${NIL}`, { notes: "x" }, { key: reader.apiKey }),
          yield* del(`/api/v1/invoices/${NIL}`, { key: reader.apiKey }),
          yield* post(`/api/v1/invoices/${NIL}/reissue`, {}, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("invoices:write")
      }
      expect((yield* get("/api/v1/invoices", { key: reader.apiKey })).body.pagination.total).toBe(0)

      const writer = yield* server.organization(["invoices:write", "clients:write"])
      for (const res of [yield* get("/api/v1/invoices", { key: writer.apiKey }), yield* get(`/api/v1/invoices/${NIL}`, { key: writer.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("invoices:read")
      }
      const writerClient = yield* newClient(writer.apiKey)
      expect((yield* post("/api/v1/invoices", { clientId: writerClient.id, lineItems: [LINE] }, { key: writer.apiKey })).status).toBe(201)

      expect((yield* get(`/api/v1/invoices/${invoice.id}`, { key: owner.apiKey })).body).toEqual(invoice)
    }))
})
