import { expect, layer } from "@effect/vitest"
import { fetched, get, post, TestServer, TestServerLive } from "@bizops/testkit"
import { admin, importFromFile, invalidImport as invalid, succeeded as ok } from "@bizops/testkit"
import { Effect } from "effect"

/**
 * The operator imports (issue 15), through the real command line on the test server's database, then
 * read back over HTTP as a client would.
 */
const line = (description: string, quantity: number, unitPrice: number) => ({ description, quantity, unitPrice })

layer(TestServerLive)("import sales", (it) => {
  it.effect("every channel but api, tax both ways, a discount and a walk-up sale; a second run changes nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const clientRes = yield* post("/api/v1/clients", { name: "Ada" }, { key: org.apiKey })
      expect(clientRes.status).toBe(201)
      const newClient: string = clientRes.body.id

      const channels = ["pos", "manual", "processor", "storefront", "marketplace", "processor-import"] as const
      const records = [
        ...channels.map((channel, i) => ({
          externalId: `ext-${channel}`,
          channel,
          saleDate: `2027-04-${String(10 + i).padStart(2, "0")}`,
          clientId: i === 0 ? newClient : undefined,
          lineItems: [line("Print", 2, 45)],
          payment: { method: "cash" }
        })),
        // Tax on top, a 10 % discount: gross 125.50, discount 12.55, tax 11.30, total 124.25.
        {
          externalId: "ext-exclusive",
          channel: "storefront",
          saleDate: "2027-04-21",
          taxInclusive: false,
          taxRate: 10,
          discountPercent: 10,
          lineItems: [line("Photo book", 1, 120), line("Gift wrap", 1, 5.5)],
          payment: { method: "processor", receivedDate: "2027-04-22" },
          notes: "Online order"
        },
        // Tax included at 8.875 %: total 90.00, tax 7.34, subtotal 82.66.
        {
          externalId: "ext-inclusive",
          channel: "pos",
          saleDate: "2027-04-20",
          taxInclusive: true,
          taxRate: 8.875,
          clientId: null,
          lineItems: [line("Print, 8x10", 2, 45)],
          payment: { method: "cash" }
        }
      ]
      const first = ok(yield* importFromFile("sales", org.organizationId, records))
      expect(first).toMatchObject({ created: 8, updated: 0, unchanged: 0 })
      expect(first.ids).toHaveLength(8)

      const sale = (i: number) => fetched(`/api/v1/sales/${first.ids[i]}`, org.apiKey)
      const pos = yield* sale(0)
      expect(pos).toMatchObject({ channel: "pos", clientId: newClient, saleNumber: "S-0001", total: 90, taxRate: 0, taxAmount: 0, subtotal: 90 })
      for (const [i, channel] of channels.entries()) expect((yield* sale(i)).channel).toBe(channel)
      expect((yield* sale(1)).clientId).toBeNull()
      expect((yield* sale(5)).saleNumber).toBe("S-0006")

      const exclusive = yield* sale(6)
      expect(exclusive).toMatchObject({
        saleNumber: "S-0007",
        taxInclusive: false,
        discountPercent: 10,
        discountAmount: 12.55,
        taxAmount: 11.3,
        total: 124.25,
        subtotal: 112.95,
        status: "completed",
        amountRefunded: 0,
        notes: "Online order",
        currency: "USD"
      })
      const walkUp = yield* sale(7)
      expect(walkUp).toMatchObject({ taxInclusive: true, total: 90, taxAmount: 7.34, subtotal: 82.66, clientId: null, contactId: null })

      const payments = yield* get(`/api/v1/payments?saleId=${first.ids[6]}`, { key: org.apiKey })
      expect(payments.status).toBe(200)
      expect(payments.body.data).toHaveLength(1)
      expect(payments.body.data[0]).toMatchObject({
        saleId: first.ids[6],
        invoiceId: null,
        kind: "payment",
        status: "succeeded",
        amount: 124.25,
        receivedDate: "2027-04-22",
        method: "processor"
      })
      const posPayment = (yield* get(`/api/v1/payments?saleId=${first.ids[0]}`, { key: org.apiKey })).body.data[0]
      expect(posPayment).toMatchObject({ clientId: newClient, receivedDate: "2027-04-10", amount: 90 })

      // The same file again: nothing changes, the same ids in the same order.
      const again = ok(yield* importFromFile("sales", org.organizationId, records))
      expect(again).toEqual({ created: 0, updated: 0, unchanged: 8, ids: first.ids })
      expect((yield* get("/api/v1/sales?limit=100", { key: org.apiKey })).body.data).toHaveLength(8)

      // Notes may change; money may not.
      const renoted = ok(yield* importFromFile("sales", org.organizationId, [{ ...records[6], notes: "Picked up" }]))
      expect(renoted).toEqual({ created: 0, updated: 1, unchanged: 0, ids: [first.ids[6]] })
      expect((yield* sale(6)).notes).toBe("Picked up")
      const repriced = invalid(yield* importFromFile("sales", org.organizationId, [records[0], { ...records[6], lineItems: [line("Photo book", 1, 99)] }]))
      expect(repriced.issues).toEqual([{ index: 1, path: [], message: expect.stringContaining("only notes may change") }])
    }))

  it.effect("one invalid record among several imports nothing, and the issues name it", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const good = (n: number) => ({ externalId: `g-${n}`, channel: "pos", saleDate: "2027-04-20", lineItems: [line("A", 1, 1)], payment: { method: "cash" } })
      const run = invalid(yield* importFromFile("sales", org.organizationId, [
        good(0),
        good(1),
        { ...good(2), channel: "api", lineItems: [], extra: true },
        { ...good(3), clientId: "00000000-0000-4000-8000-000000000000" }
      ]))
      expect(run.issues.map((issue) => issue.index)).toEqual(expect.arrayContaining([2]))
      expect(run.issues.every((issue) => issue.index === 2)).toBe(true)
      expect(run.issues.map((issue) => issue.path[0])).toEqual(expect.arrayContaining(["channel", "lineItems", "extra"]))
      expect(run.message).toContain("record 2")
      expect((yield* get("/api/v1/sales", { key: org.apiKey })).body.data).toEqual([])

      // A file of 100 with one invalid record (a unit price finer than a cent) imports nothing.
      const hundred = Array.from({ length: 100 }, (_, i) => i === 57 ? { ...good(i), lineItems: [line("A", 1, 1.005)] } : good(i))
      const one = invalid(yield* importFromFile("sales", org.organizationId, hundred))
      expect(one.issues).toEqual([{ index: 57, path: ["lineItems", 0, "unitPrice"], message: expect.any(String) }])
      expect((yield* get("/api/v1/sales", { key: org.apiKey })).body.pagination.total).toBe(0)

      // A linked record of another organization (or none) is linked_record_not_found.
      const linked = invalid(yield* importFromFile("sales", org.organizationId, [good(0), { ...good(3), clientId: "00000000-0000-4000-8000-000000000000" }]))
      expect(linked.issues).toEqual([{ index: 1, path: ["clientId"], message: expect.stringContaining("linked_record_not_found") }])
      expect((yield* get("/api/v1/sales", { key: org.apiKey })).body.data).toEqual([])

      // Not an array, not JSON: invalid_import too.
      invalid(yield* importFromFile("sales", org.organizationId, { externalId: "x" }))
      invalid(yield* importFromFile("sales", org.organizationId, "[{"))
    }))

  it.effect("a file that names one externalId twice imports nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const sale = (notes: string) => ({ externalId: "twice", channel: "pos", saleDate: "2027-04-20", lineItems: [line("A", 1, 1)], payment: { method: "cash" }, notes })
      const run = invalid(yield* importFromFile("sales", org.organizationId, [sale("a"), sale("b")]))
      expect(run.issues).toEqual([{ index: 1, path: ["externalId"], message: expect.stringContaining("record 0") }])
      expect((yield* get("/api/v1/sales", { key: org.apiKey })).body.data).toEqual([])
    }))

  it.effect("a file of 5,000 sales: every id printed in file order (about 190 kB of stdout), numbered without gaps", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const records = Array.from({ length: 5000 }, (_, i) => ({
        externalId: `bulk-${i}`,
        channel: "pos",
        saleDate: "2027-04-20",
        taxRate: i % 3 === 0 ? 8.875 : 0,
        lineItems: [line("A", 1 + (i % 3), 1 + (i % 7))],
        payment: { method: "cash" }
      }))
      const first = ok(yield* importFromFile("sales", org.organizationId, records))
      expect(first).toMatchObject({ created: 5000, updated: 0, unchanged: 0 })
      expect(new Set(first.ids).size).toBe(5000)
      for (const i of [0, 2500, 4999]) {
        const sale = (yield* get(`/api/v1/sales/${first.ids[i]}`, { key: org.apiKey })).body
        expect(sale).toMatchObject({ externalId: `bulk-${i}`, saleNumber: `S-${String(i + 1).padStart(4, "0")}` })
      }
      const again = ok(yield* importFromFile("sales", org.organizationId, records))
      expect(again).toEqual({ created: 0, updated: 0, unchanged: 5000, ids: first.ids })
    }))

  it.effect("the example files of the repository import", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const sales = ok(yield* admin("import", "sales", "--org", org.organizationId, "--file", "examples/sales.json"))
      expect(sales).toMatchObject({ created: 2, updated: 0, unchanged: 0 })
      const payouts = ok(yield* admin("import", "payouts", "--org", org.organizationId, "--file", "examples/payouts.json"))
      expect(payouts).toMatchObject({ created: 2, updated: 0, unchanged: 0 })
      expect((yield* get(`/api/v1/payouts/${payouts.ids[0]}`, { key: org.apiKey })).body).toMatchObject({ amount: 1000.5, disputeTotal: 10 })
      const documents = ok(yield* admin("import", "client-documents", "--org", org.organizationId, "--file", "examples/client-documents.json"))
      expect(documents).toMatchObject({ created: 2, updated: 0, unchanged: 0 })
      // The template is stored but never shown.
      expect((yield* get(`/api/v1/client-documents/${documents.ids[0]}`, { key: org.apiKey })).body).toMatchObject({ status: "sent", kind: "smart-file" })
      expect((yield* get(`/api/v1/client-documents/${documents.ids[1]}`, { key: org.apiKey })).status).toBe(404)
    }))
})

layer(TestServerLive)("import payouts", (it) => {
  it.effect("reconciled, unreconciled, without disputes and manual payouts; paymentIds get payoutId", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const sales = ok(yield* importFromFile("sales", org.organizationId, [
        { externalId: "s1", channel: "processor", saleDate: "2027-04-20", lineItems: [line("A", 1, 60)], payment: { method: "processor" } },
        { externalId: "s2", channel: "processor", saleDate: "2027-04-20", lineItems: [line("B", 1, 40)], payment: { method: "processor" } }
      ]))
      const paymentIds: Array<string> = []
      for (const saleId of sales.ids) paymentIds.push((yield* get(`/api/v1/payments?saleId=${saleId}`, { key: org.apiKey })).body.data[0].id)

      const base = { status: "paid", type: "bank_account", automatic: true, arrivalDate: "2027-04-25" }
      const records = [
        {
          ...base,
          processorPayoutId: "po_reconciled",
          amount: 95,
          grossTotal: 100,
          feeTotal: 3,
          refundTotal: 1,
          disputeTotal: 1,
          paymentCount: 2,
          lastReconciledAt: "2027-04-26T08:00:00.000Z",
          paymentIds
        },
        { ...base, processorPayoutId: "po_unreconciled", amount: 50, status: "in_transit" },
        { ...base, processorPayoutId: "po_no_disputes", amount: 96, grossTotal: 100, feeTotal: 3, refundTotal: 1, disputeTotal: null, lastReconciledAt: "2027-04-26T08:00:00Z" },
        {
          ...base,
          processorPayoutId: "po_manual",
          automatic: false,
          amount: 97,
          grossTotal: 100,
          feeTotal: 3,
          refundTotal: 1,
          disputeTotal: 0,
          unattributedTotal: 1,
          lastReconciledAt: "2027-04-26T08:00:00Z"
        }
      ]
      const first = ok(yield* importFromFile("payouts", org.organizationId, records))
      expect(first).toMatchObject({ created: 4, updated: 0, unchanged: 0 })
      const payout = (i: number) => Effect.map(get(`/api/v1/payouts/${first.ids[i]}`, { key: org.apiKey }), (res) => res.body)

      expect(yield* payout(0)).toMatchObject({ amount: 95, grossTotal: 100, disputeTotal: 1, paymentCount: 2, lastReconciledAt: "2027-04-26T08:00:00.000Z" })
      const unreconciled = yield* payout(1)
      expect(unreconciled).toMatchObject({
        status: "in_transit",
        grossTotal: null,
        feeTotal: null,
        refundTotal: null,
        disputeTotal: null,
        unattributedTotal: null,
        paymentCount: null,
        lastReconciledAt: null,
        description: null
      })
      expect(yield* payout(2)).toMatchObject({ amount: 96, disputeTotal: null, grossTotal: 100 })
      expect(yield* payout(3)).toMatchObject({ automatic: false, unattributedTotal: 1, disputeTotal: 0 })
      expect((yield* get("/api/v1/payouts?reconciled=false", { key: org.apiKey })).body.data.map((p: { id: string }) => p.id)).toEqual([first.ids[1]])

      for (const saleId of sales.ids) {
        expect((yield* get(`/api/v1/payments?saleId=${saleId}`, { key: org.apiKey })).body.data[0].payoutId).toBe(first.ids[0])
      }

      const again = ok(yield* importFromFile("payouts", org.organizationId, records))
      expect(again).toEqual({ created: 0, updated: 0, unchanged: 4, ids: first.ids })
      const paid = ok(yield* importFromFile("payouts", org.organizationId, [{ ...records[1], status: "paid" }]))
      expect(paid).toEqual({ created: 0, updated: 1, unchanged: 0, ids: [first.ids[1]] })
      expect((yield* payout(1)).status).toBe("paid")
    }))

  it.effect("the payout rules refuse the file: nothing is imported", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const base = { status: "paid", type: "bank_account", automatic: true }
      const run = invalid(yield* importFromFile("payouts", org.organizationId, [
        { ...base, processorPayoutId: "ok", amount: 10 },
        // Unreconciled with a total.
        { ...base, processorPayoutId: "bad1", amount: 10, grossTotal: 10 },
        // Automatic with unattributedTotal 0.
        { ...base, processorPayoutId: "bad2", amount: 10, grossTotal: 10, feeTotal: 0, refundTotal: 0, unattributedTotal: 0, lastReconciledAt: "2027-04-26T08:00:00Z" },
        // The identity off by a cent.
        { ...base, processorPayoutId: "bad3", amount: 10, grossTotal: 10.01, feeTotal: 0, refundTotal: 0, disputeTotal: 0, lastReconciledAt: "2027-04-26T08:00:00Z" },
        // A payment that is not the organization's.
        { ...base, processorPayoutId: "bad4", amount: 10, paymentIds: ["00000000-0000-4000-8000-000000000000"] },
        // A negative refundTotal; a negative disputeTotal.
        { ...base, processorPayoutId: "bad5", amount: 11, grossTotal: 10, feeTotal: 0, refundTotal: -1, disputeTotal: 0, lastReconciledAt: "2027-04-26T08:00:00Z" },
        { ...base, processorPayoutId: "bad6", amount: 11, grossTotal: 10, feeTotal: 0, refundTotal: 0, disputeTotal: -1, lastReconciledAt: "2027-04-26T08:00:00Z" }
      ]))
      expect(run.issues).toEqual(expect.arrayContaining([
        { index: 1, path: ["grossTotal"], message: expect.stringContaining("lastReconciledAt is null") },
        { index: 2, path: ["unattributedTotal"], message: expect.stringContaining("automatic") },
        { index: 3, path: ["amount"], message: expect.stringContaining("off by 0.01") },
        { index: 5, path: ["refundTotal"], message: expect.any(String) },
        { index: 6, path: ["disputeTotal"], message: expect.any(String) }
      ]))
      expect(run.issues.some((issue) => issue.index === 0)).toBe(false)
      expect((yield* get("/api/v1/payouts", { key: org.apiKey })).body.data).toEqual([])

      const linked = invalid(yield* importFromFile("payouts", org.organizationId, [
        { ...base, processorPayoutId: "bad4", amount: 10, paymentIds: ["00000000-0000-4000-8000-000000000000"] }
      ]))
      expect(linked.issues).toEqual([{ index: 0, path: ["paymentIds", 0], message: expect.stringContaining("linked_record_not_found") }])
    }))
})
