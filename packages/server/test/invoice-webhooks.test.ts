import { describe, expect, layer } from "@effect/vitest"
import { created, expectError, fetched, makeTestServer, patch, post, realSleep, receiver, ShiftedClock, subscribe, TestServer, TIMESTAMP, verified } from "@bizops/testkit"
import { Effect } from "effect"

const clock = new ShiftedClock()
const RECEIVED = "2026-03-02"

/** How long to keep listening once the expected deliveries are in, to catch a duplicate or a stray event. */
const SETTLE_MS = 1500

const invoiceNow = (key: string, id: string) => fetched(`/api/v1/invoices/${id}`, key)

const paymentOn = (invoice: { readonly id: string; readonly clientId: string }, amount: number, extra: Record<string, unknown> = {}) => ({
  clientId: invoice.clientId,
  invoiceId: invoice.id,
  amount,
  receivedDate: RECEIVED,
  method: "check",
  ...extra
})

/** A fresh organization with a client and a sent invoice of 100.00 (one untaxed line). */
const setup = Effect.gen(function*() {
  const org = yield* (yield* TestServer).organization()
  const client = yield* created("/api/v1/clients", org.apiKey, { name: "Client" })
  return { org, key: org.apiKey, client }
})

const sentInvoice = (key: string, clientId: string) =>
  Effect.map(
    created("/api/v1/invoices", key, { clientId, status: "sent", lineItems: [{ description: "Prints", quantity: 1, unitPrice: 100 }] }),
    (invoice) => {
      expect(invoice).toMatchObject({ status: "sent", total: 100, amountPaid: 0, balanceDue: 100 })
      return invoice
    }
  )

layer(makeTestServer({ clock, config: { webhooksAllowInsecure: true } }))("invoice and payment webhooks", (it) => {
  describe("invoice_refunded", () => {
    it.effect("one signed event per refund, carrying the invoice after the refund and the refund itself", () =>
      Effect.scoped(Effect.gen(function*() {
        const { key, org, client } = yield* setup
        const hook = yield* receiver
        yield* subscribe(key, hook.url, ["invoice_refunded"])
        const invoice = yield* sentInvoice(key, client.id)
        const payment = yield* created("/api/v1/payments", key, paymentOn(invoice, 100, { method: "wire" }))

        const first = yield* created(
          "/api/v1/payments",
          key,
          paymentOn(invoice, -30, { kind: "refund", refundOfId: payment.id, method: "bank_transfer", notes: "Scratched print" })
        )
        const afterFirst = yield* invoiceNow(key, invoice.id)
        expect(afterFirst).toMatchObject({ status: "sent", amountPaid: 70, balanceDue: 30, paidAt: null })
        const second = yield* created("/api/v1/payments", key, paymentOn(invoice, -20.5, { kind: "refund", refundOfId: payment.id, method: "cash" }))
        const afterSecond = yield* invoiceNow(key, invoice.id)
        expect(afterSecond).toMatchObject({ status: "sent", amountPaid: 49.5, balanceDue: 50.5 })
        // A payment that is not a refund sends none.
        yield* created("/api/v1/payments", key, paymentOn(invoice, 5))

        expect(yield* hook.waitFor(2)).toHaveLength(2)
        yield* realSleep(SETTLE_MS)
        const got = hook.received()
        expect(got).toHaveLength(2)
        expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(2)
        const events = got.map(verified)
        for (const event of events) {
          expect(event).toEqual({
            id: expect.any(String),
            type: "invoice_refunded",
            createdAt: expect.stringMatching(TIMESTAMP),
            organizationId: org.organizationId,
            data: { object: expect.any(Object), refund: expect.any(Object) }
          })
        }
        const byRefund = new Map(events.map((e) => [e.data.refund.paymentId, e]))
        expect(byRefund.get(first.id)?.data).toEqual({
          object: afterFirst,
          refund: { paymentId: first.id, amount: 30, method: "bank_transfer", reason: "Scratched print" }
        })
        expect(byRefund.get(second.id)?.data).toEqual({
          object: afterSecond,
          refund: { paymentId: second.id, amount: 20.5, method: "cash", reason: null }
        })
      })))

    it.effect("a refund that reopens a paid invoice: the event's invoice is sent again with paidAt null", () =>
      Effect.scoped(Effect.gen(function*() {
        const { key, client } = yield* setup
        const hook = yield* receiver
        yield* subscribe(key, hook.url, ["invoice_refunded"])
        const invoice = yield* sentInvoice(key, client.id)
        const payment = yield* created("/api/v1/payments", key, paymentOn(invoice, 100))
        expect((yield* invoiceNow(key, invoice.id)).status).toBe("paid")
        const refund = yield* created("/api/v1/payments", key, paymentOn(invoice, -100, { kind: "refund", refundOfId: payment.id, notes: "Cancelled" }))
        const after = yield* invoiceNow(key, invoice.id)
        const [delivery] = yield* hook.waitFor(1)
        const event = verified(delivery)
        expect(event.data.object).toEqual(after)
        expect(event.data.object).toMatchObject({ status: "sent", paidAt: null, amountPaid: 0, balanceDue: 100 })
        expect(event.data.refund).toEqual({ paymentId: refund.id, amount: 100, method: "check", reason: "Cancelled" })
      })))

    it.effect("refused refunds and plain payments send no invoice_refunded", () =>
      Effect.scoped(Effect.gen(function*() {
        const { key, client } = yield* setup
        const hook = yield* receiver
        yield* subscribe(key, hook.url, ["invoice_refunded"])
        const invoice = yield* sentInvoice(key, client.id)
        const payment = yield* created("/api/v1/payments", key, paymentOn(invoice, 60))
        yield* created("/api/v1/payments", key, paymentOn(invoice, 40))
        const refund = (amount: number) => post("/api/v1/payments", paymentOn(invoice, amount, { kind: "refund", refundOfId: payment.id }), { key })
        expectError(yield* refund(-60.01), 409, "conflict")
        expectError(yield* refund(10), 400, "invalid_request", "invalid_payload")
        expectError(
          yield* post("/api/v1/payments", paymentOn(invoice, -10, { kind: "refund", refundOfId: payment.id, currency: "EUR" }), { key }),
          400,
          "invalid_request",
          "currency_locked"
        )
        // One refund that is recorded, so that the wait below has something to wait for.
        const recorded = yield* refund(-10)
        expect(recorded.status).toBe(201)
        expect(yield* hook.waitFor(1)).toHaveLength(1)
        yield* realSleep(SETTLE_MS)
        const got = hook.received()
        expect(got).toHaveLength(1)
        expect(verified(got[0]).data.refund.paymentId).toBe(recorded.body.id)
      })))
  })

  describe("invoice and payment events", () => {
    it.effect("a \"*\" subscription gets invoice_created, payment_created, invoice_updated with previousAttributes, payment_updated", () =>
      Effect.scoped(Effect.gen(function*() {
        const { key, org, client } = yield* setup
        const hook = yield* receiver
        yield* subscribe(key, hook.url, ["*"])
        const invoice = yield* sentInvoice(key, client.id)
        yield* realSleep(10)
        const first = yield* created("/api/v1/payments", key, paymentOn(invoice, 40))
        const partly = yield* invoiceNow(key, invoice.id)
        yield* realSleep(10)
        const second = yield* created("/api/v1/payments", key, paymentOn(invoice, 60, { method: "wallet_b" }))
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 100, balanceDue: 0, paidAt: second.createdAt })
        yield* realSleep(10)
        const edited = yield* patch(`/api/v1/payments/${first.id}`, { reference: "CHK-1" }, { key })
        expect(edited.status).toBe(200)

        expect(yield* hook.waitFor(6)).toHaveLength(6)
        yield* realSleep(SETTLE_MS)
        const events = hook.received().map(verified)
        expect(events.map((e) => e.type).sort()).toEqual([
          "invoice_created",
          "invoice_updated",
          "invoice_updated",
          "payment_created",
          "payment_created",
          "payment_updated"
        ])
        for (const event of events) expect(event.organizationId).toBe(org.organizationId)
        const of = (type: string) => events.filter((e) => e.type === type)

        expect(of("invoice_created")[0].data).toEqual({ object: invoice })
        expect(of("payment_created").map((e) => e.data).sort((a, b) => a.object.amount - b.object.amount)).toEqual([
          { object: first },
          { object: second }
        ])

        const updates = of("invoice_updated").sort((a, b) => a.data.object.amountPaid - b.data.object.amountPaid)
        expect(updates[0].data).toEqual({
          object: partly,
          previousAttributes: { amountPaid: 0, balanceDue: 100, updatedAt: invoice.updatedAt }
        })
        expect(updates[1].data).toEqual({
          object: paid,
          previousAttributes: { status: "sent", amountPaid: 40, balanceDue: 60, paidAt: null, updatedAt: partly.updatedAt }
        })

        expect(of("payment_updated")[0].data).toEqual({
          object: edited.body,
          previousAttributes: { reference: null, updatedAt: first.updatedAt }
        })
      })))

    it.effect("concurrent payments that settle an invoice: one invoice_updated each, and exactly one of them moves it to paid", () =>
      Effect.scoped(Effect.gen(function*() {
        const { key, client } = yield* setup
        const hook = yield* receiver
        yield* subscribe(key, hook.url, ["invoice_updated"])
        const invoice = yield* sentInvoice(key, client.id)
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () => post("/api/v1/payments", paymentOn(invoice, 20), { key })),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201])
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 100, balanceDue: 0 })

        expect(yield* hook.waitFor(5)).toHaveLength(5)
        yield* realSleep(SETTLE_MS)
        const events = hook.received().map(verified)
        expect(events).toHaveLength(5)
        // Each payment saw the ones before it: the amounts paid step by 20.
        const objects = events.map((e) => e.data.object).sort((a, b) => a.amountPaid - b.amountPaid)
        expect(objects.map((o) => o.amountPaid)).toEqual([20, 40, 60, 80, 100])
        const settling = events.filter((e) => e.data.previousAttributes?.status !== undefined)
        expect(settling).toHaveLength(1)
        expect(settling[0].data.previousAttributes).toMatchObject({ status: "sent", amountPaid: 80, balanceDue: 20, paidAt: null })
        expect(settling[0].data.object).toEqual(paid)
        expect(objects.filter((o) => o.status === "paid")).toHaveLength(1)
      })))
  })
})
