import { expect, layer } from "@effect/vitest"
import { revenue } from "@bizops/domain"
import { fetched, get, makeTestServer, post, realSleep, receiver, subscribe, TestServer, TIMESTAMP, verified } from "@bizops/testkit"
import { admin, importFromStdin, refused, succeeded as ok } from "@bizops/testkit"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * What happens to sales and payouts after their import (issue 15): `sale refund` and `sale void` through the
 * real command line, the events of the imports and of those commands delivered to a real receiver and
 * verified with `standardwebhooks`, the organization's currency (`org update`), and an import read from
 * standard input. Read back over HTTP as a client would.
 */
const sale = (key: string, id: string) => fetched(`/api/v1/sales/${id}`, key)

/** Σ debits and Σ credits of a sale's books lines, and the net of each account (debit positive), in minor units. */
const books = (saleId: string) =>
  Effect.flatMap(TestServer, (server) =>
    server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ readonly account: string; readonly net: number; readonly debits: number; readonly credits: number }>`
        SELECT account,
          sum(CASE WHEN side = 'debit' THEN amount_minor ELSE -amount_minor END)::float8 AS net,
          sum(CASE WHEN side = 'debit' THEN amount_minor ELSE 0 END)::float8 AS debits,
          sum(CASE WHEN side = 'credit' THEN amount_minor ELSE 0 END)::float8 AS credits
        FROM books_entries WHERE sale_id = ${saleId} GROUP BY account ORDER BY account`)))

const balanced = (rows: ReadonlyArray<{ readonly debits: number; readonly credits: number }>) => {
  const debits = rows.reduce((sum, row) => sum + row.debits, 0)
  const credits = rows.reduce((sum, row) => sum + row.credits, 0)
  expect(debits).toBe(credits)
}

const netOf = (rows: ReadonlyArray<{ readonly account: string; readonly net: number }>) =>
  Object.fromEntries(rows.map((row) => [row.account, row.net]))

const line = (description: string, quantity: number, unitPrice: number) => ({ description, quantity, unitPrice })

/** A sale of 90.00 with 8.875 % tax included: tax 7.34, subtotal 82.66. */
const taxedSale = (externalId: string, extra: Record<string, unknown> = {}) => ({
  externalId,
  channel: "pos",
  saleDate: "2027-04-20",
  taxRate: 8.875,
  lineItems: [line("Print, 8x10", 2, 45)],
  payment: { method: "processor" },
  ...extra
})

layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("sale refund and sale void", (it) => {
  it.effect("refunds in parts then in full: refund payments, books reversed exactly, status, events signed", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["sale_created", "sale_partially_refunded", "sale_refunded", "payment_created"])
      const client = (yield* post("/api/v1/clients", { name: "Ada" }, { key: org.apiKey })).body
      // Read from standard input (--file -).
      const imported = ok(yield* importFromStdin("sales", org.organizationId, [taxedSale("r-1", { clientId: client.id })]))
      const id: string = imported.ids[0]

      const first = ok(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "30.01", "--reason", "Scratched"))
      expect(first.sale).toMatchObject({ id, status: "partially-refunded", amountRefunded: 30.01, total: 90 })
      expect(first.payment).toMatchObject({
        kind: "refund",
        amount: -30.01,
        saleId: id,
        invoiceId: null,
        clientId: client.id,
        method: "processor",
        notes: "Scratched",
        status: "succeeded"
      })
      const second = ok(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "29.99"))
      expect(second.sale).toMatchObject({ status: "partially-refunded", amountRefunded: 60 })

      // More than what is left (30.00) is refused and changes nothing.
      const tooMuch = refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "30.01"))
      expect(tooMuch).toEqual({ code: "conflict", message: expect.stringContaining("30.00 USD is left") })
      expect(refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "1.001")).code).toBe("invalid_request")
      expect(refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "-5")).code).toBe("invalid_request")
      expect(refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "many")).code).toBe("invalid_request")
      expect((yield* sale(org.apiKey, id)).amountRefunded).toBe(60)

      const last = ok(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "30"))
      expect(last.sale).toMatchObject({ status: "refunded", amountRefunded: 90 })
      expect(yield* sale(org.apiKey, id)).toEqual(last.sale)
      const payments = (yield* get(`/api/v1/payments?saleId=${id}`, { key: org.apiKey })).body.data
      expect(payments.map((p: { amount: number }) => p.amount).sort((a: number, b: number) => a - b)).toEqual([-30.01, -30, -29.99, 90])
      const original = payments.find((p: { kind: string }) => p.kind === "payment")
      for (const refund of payments.filter((p: { kind: string }) => p.kind === "refund")) expect(refund.refundOfId).toBe(original.id)

      // Refunded in three parts: revenue and tax reversed exactly, nothing left in any account.
      const rows = yield* books(id)
      balanced(rows)
      expect(netOf(rows)).toEqual({ cash: 0, sales_revenue: 0, sales_tax_payable: 0 })
      expect(refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", id, "--amount", "0.01")).code).toBe("conflict")

      // Events: sale_created and payment_created of the import, then one payment_created and one sale event per refund.
      const deliveries = yield* hook.waitFor(8)
      yield* realSleep(1000)
      const events = hook.received().map(verified)
      expect(deliveries.length).toBe(8)
      expect(events).toHaveLength(8)
      for (const event of events) {
        expect(event).toMatchObject({ organizationId: org.organizationId, createdAt: expect.stringMatching(TIMESTAMP) })
      }
      expect(events.filter((e) => e.type === "payment_created")).toHaveLength(4)
      expect(events.find((e) => e.type === "sale_created")?.data.object).toMatchObject({ id, status: "completed", amountRefunded: 0 })
      expect(events.filter((e) => e.type === "sale_partially_refunded").map((e) => e.data.object.amountRefunded).sort()).toEqual([30.01, 60])
      expect(events.filter((e) => e.type === "sale_refunded").map((e) => e.data.object)).toEqual([last.sale])
    })))

  it.effect("void: status, when and why, the books reversed in full; no refund after it; never revenue", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["sale_voided"])
      const imported = ok(yield* importFromStdin("sales", org.organizationId, [taxedSale("v-1"), taxedSale("v-2"), taxedSale("v-3")]))
      const [voided, refundedThenVoided, kept] = imported.ids as Array<string>

      expect(refused(yield* admin("sale", "void", "--org", org.organizationId, "--id", voided, "--reason", "  ")).code).toBe("invalid_request")
      const result = ok(yield* admin("sale", "void", "--org", org.organizationId, "--id", voided, "--reason", "Rung up twice"))
      expect(result.sale).toMatchObject({ id: voided, status: "voided", voidReason: "Rung up twice", voidedAt: expect.stringMatching(TIMESTAMP) })
      expect(yield* sale(org.apiKey, voided)).toEqual(result.sale)
      expect(netOf(yield* books(voided))).toEqual({ cash: 0, sales_revenue: 0, sales_tax_payable: 0 })

      // A voided sale accepts nothing more.
      expect(refused(yield* admin("sale", "refund", "--org", org.organizationId, "--id", voided, "--amount", "1")))
        .toEqual({ code: "conflict", message: "A voided sale accepts no refund" })
      expect(refused(yield* admin("sale", "void", "--org", org.organizationId, "--id", voided, "--reason", "Again")).code).toBe("conflict")

      // Part refunded, then voided: the void reverses what the refund had not.
      ok(yield* admin("sale", "refund", "--org", org.organizationId, "--id", refundedThenVoided, "--amount", "10"))
      ok(yield* admin("sale", "void", "--org", org.organizationId, "--id", refundedThenVoided, "--reason", "Returned"))
      const rows = yield* books(refundedThenVoided)
      balanced(rows)
      expect(netOf(rows)).toEqual({ cash: 0, sales_revenue: 0, sales_tax_payable: 0 })

      // Revenue over what the API lists: only the sale that was kept counts (its subtotal, 82.66).
      const listed = (yield* get("/api/v1/sales", { key: org.apiKey })).body.data
      expect(listed.map((s: { status: string }) => s.status).sort()).toEqual(["completed", "voided", "voided"])
      expect(revenue(listed)).toBe(82.66)
      expect((yield* sale(org.apiKey, kept)).subtotal).toBe(82.66)

      yield* hook.waitFor(2)
      yield* realSleep(1000)
      const events = hook.received().map(verified)
      expect(events.map((e) => [e.type, e.data.object.id]).sort()).toEqual([["sale_voided", refundedThenVoided], ["sale_voided", voided]].sort())
    })))

  it.effect("another organization's sale, or no sale, is not_found and changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const other = yield* server.organization()
      const [id] = ok(yield* importFromStdin("sales", owner.organizationId, [taxedSale("x-1")])).ids
      expect(refused(yield* admin("sale", "refund", "--org", other.organizationId, "--id", id, "--amount", "1")))
        .toEqual({ code: "not_found", message: "No such sale" })
      expect(refused(yield* admin("sale", "void", "--org", other.organizationId, "--id", id, "--reason", "No")).code).toBe("not_found")
      expect((yield* sale(owner.apiKey, id))).toMatchObject({ status: "completed", amountRefunded: 0 })
      // Not a UUID: a usage error (exit 2), before any database is opened.
      const usage = yield* admin("sale", "refund", "--org", owner.organizationId, "--id", "not-a-uuid", "--amount", "1")
      expect(usage.code).toBe(2)
      expect(JSON.parse(usage.stderr.trim().split("\n").at(-1) ?? "null").error.code).toBe("usage")
    }))
})

layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("import events", (it) => {
  it.effect("sale_created, sale_updated with previousAttributes; a second run of the same file sends nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["sale_created", "sale_updated"])
      const records = [taxedSale("e-1", { notes: "first" }), taxedSale("e-2")]
      const first = ok(yield* importFromStdin("sales", org.organizationId, records))
      ok(yield* importFromStdin("sales", org.organizationId, records))
      const renoted = ok(yield* importFromStdin("sales", org.organizationId, [{ ...records[0], notes: "second" }]))
      expect(renoted).toMatchObject({ updated: 1 })

      yield* hook.waitFor(3)
      yield* realSleep(1500)
      const events = hook.received().map(verified)
      expect(events.map((e) => e.type).sort()).toEqual(["sale_created", "sale_created", "sale_updated"])
      const updated = events.find((e) => e.type === "sale_updated")
      expect(updated?.data.object).toEqual(yield* sale(org.apiKey, first.ids[0]))
      expect(updated?.data.previousAttributes).toEqual({ notes: "first", updatedAt: expect.stringMatching(TIMESTAMP) })
    })))

  it.effect("payout events: nulls stay null and paymentCount is absent when unknown; paid and failed; linked payments updated", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["payout_created", "payout_updated", "payout_paid", "payout_failed", "payment_updated"])
      const sold = ok(yield* importFromStdin("sales", org.organizationId, [taxedSale("p-1")]))
      const paymentId = (yield* get(`/api/v1/payments?saleId=${sold.ids[0]}`, { key: org.apiKey })).body.data[0].id

      const base = { type: "bank_account", automatic: true, arrivalDate: "2027-04-25" }
      const unreconciled = { ...base, processorPayoutId: "po_1", amount: 87.1, status: "in_transit" }
      const failing = { ...base, processorPayoutId: "po_2", amount: 20, status: "pending" }
      const created = ok(yield* importFromStdin("payouts", org.organizationId, [unreconciled, failing]))
      const [payoutId, failingId] = created.ids as Array<string>
      // It arrives, reconciled: 90 gross, 2.90 fees, 0 refunds, disputes not bucketed (null), one payment.
      ok(yield* importFromStdin("payouts", org.organizationId, [
        { ...unreconciled, status: "paid", grossTotal: 90, feeTotal: 2.9, refundTotal: 0, paymentCount: 1, lastReconciledAt: "2027-04-26T08:00:00Z", paymentIds: [paymentId] },
        { ...failing, status: "failed", failureCode: "account_closed", failureMessage: "The bank account is closed" }
      ]))

      yield* hook.waitFor(7)
      yield* realSleep(1500)
      const events = hook.received().map(verified)
      expect(events.map((e) => e.type).sort()).toEqual(
        ["payment_updated", "payout_created", "payout_created", "payout_failed", "payout_paid", "payout_updated", "payout_updated"]
      )
      const createdEvent = events.find((e) => e.type === "payout_created" && e.data.object.id === payoutId)
      const object = createdEvent?.data.object ?? {}
      expect("paymentCount" in object).toBe(false)
      expect(object).toMatchObject({ grossTotal: null, feeTotal: null, refundTotal: null, disputeTotal: null, unattributedTotal: null, lastReconciledAt: null })

      const api = (yield* get(`/api/v1/payouts/${payoutId}`, { key: org.apiKey })).body
      expect(api).toMatchObject({ status: "paid", paymentCount: 1, disputeTotal: null })
      const paid = events.find((e) => e.type === "payout_paid")
      expect(paid?.data.object).toEqual(api)
      const updated = events.find((e) => e.type === "payout_updated" && e.data.object.id === payoutId)
      expect(updated?.data.previousAttributes).toMatchObject({ status: "in_transit", grossTotal: null, lastReconciledAt: null })
      // The old paymentCount was null: left out of previousAttributes as well.
      expect("paymentCount" in (updated?.data.previousAttributes ?? {})).toBe(false)
      expect(events.find((e) => e.type === "payout_failed")?.data.object).toMatchObject({ id: failingId, failureCode: "account_closed" })
      const linked = events.find((e) => e.type === "payment_updated")
      expect(linked?.data.object).toMatchObject({ id: paymentId, payoutId })
      expect(linked?.data.previousAttributes).toMatchObject({ payoutId: null })
    })))
})

layer(makeTestServer({}))("org update", (it) => {
  it.effect("the currency becomes the default of sales, payouts and invoices; the default tax rate taxes invoices", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const settings = ok(yield* admin("org", "update", "--id", org.organizationId, "--currency", "EUR", "--default-tax-rate", "20", "--owner-email", "owner@studio.example"))
      expect(settings).toEqual({ organizationId: org.organizationId, currency: "EUR", defaultTaxRate: 20, ownerEmail: "owner@studio.example" })
      // Only what is named changes; an empty email clears it.
      expect(ok(yield* admin("org", "update", "--id", org.organizationId, "--owner-email", ""))).toEqual({ ...settings, ownerEmail: null })

      const [saleId] = ok(yield* importFromStdin("sales", org.organizationId, [taxedSale("eur-1"), taxedSale("usd-1", { currency: "USD" })])).ids
      expect(yield* sale(org.apiKey, saleId)).toMatchObject({ currency: "EUR", total: 90 })
      const [payoutId] = ok(yield* importFromStdin("payouts", org.organizationId, [{ processorPayoutId: "po_eur", amount: 10, status: "paid", type: "bank_account", automatic: true }])).ids
      expect((yield* get(`/api/v1/payouts/${payoutId}`, { key: org.apiKey })).body.currency).toBe("EUR")

      const client = (yield* post("/api/v1/clients", { name: "Ada" }, { key: org.apiKey })).body
      const invoice = yield* post("/api/v1/invoices", {
        clientId: client.id,
        status: "sent",
        lineItems: [{ description: "Prints", quantity: 1, unitPrice: 100, taxable: true }]
      }, { key: org.apiKey })
      expect(invoice.status).toBe(201)
      expect(invoice.body).toMatchObject({ currency: "EUR", taxAmount: 20, total: 120 })
      // A payment without a currency takes its invoice's.
      const payment = yield* post("/api/v1/payments", {
        clientId: client.id,
        invoiceId: invoice.body.id,
        amount: 120,
        receivedDate: "2027-04-20",
        method: "wire"
      }, { key: org.apiKey })
      expect(payment.status).toBe(201)
      expect(payment.body.currency).toBe("EUR")
    }))

  it.effect("bad values are invalid_request before any change; an unknown organization is not_found", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (const args of [["--currency", "eur"], ["--default-tax-rate", "101"], ["--default-tax-rate", "ten"], ["--owner-email", "nobody"]]) {
        const error = refused(yield* admin("org", "update", "--id", org.organizationId, ...args))
        expect(error.code).toBe("invalid_request")
      }
      expect(refused(yield* admin("org", "update", "--id", org.organizationId, "--currency", "EURO")).message).toContain("currency")
      expect(refused(yield* admin("org", "update", "--id", "00000000-0000-4000-8000-000000000000", "--currency", "EUR")))
        .toEqual({ code: "not_found", message: "No organization 00000000-0000-4000-8000-000000000000" })
      const [saleId] = ok(yield* importFromStdin("sales", org.organizationId, [taxedSale("still-usd")])).ids
      expect((yield* sale(org.apiKey, saleId)).currency).toBe("USD")
    }))
})
