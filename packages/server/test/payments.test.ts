import { describe, expect, layer } from "@effect/vitest"
import { del, expectError, expectInvalid, get, makeTestServer, NIL, patch, post, ShiftedClock, TestServer, TIMESTAMP } from "@bizops/testkit"
import { created, fetched, newClient, realSleep } from "@bizops/testkit"
import { Effect } from "effect"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const RECEIVED = "2026-03-02"

interface InvoiceRef {
  readonly id: string
  readonly clientId: string
}

/** An invoice with one untaxed line of `total`. */
const newInvoice = (key: string, clientId: string, total: number, status: "draft" | "sent" = "sent") =>
  Effect.map(created("/api/v1/invoices", key, { clientId, status, lineItems: [{ description: "Work", quantity: 1, unitPrice: total }] }), (invoice) => {
    expect(invoice).toMatchObject({ status: total === 0 && status === "sent" ? "paid" : status, total, amountPaid: 0, balanceDue: total })
    return invoice
  })

/** A fresh organization with a client and a sent invoice of `total`. */
const setup = (total: number) =>
  Effect.gen(function*() {
    const org = yield* (yield* TestServer).organization()
    const client = yield* newClient(org.apiKey)
    const invoice = yield* newInvoice(org.apiKey, client.id, total)
    return { org, key: org.apiKey, client, invoice }
  })

/** A payment body on an invoice (method check unless `extra` says otherwise). */
const paymentOn = (invoice: InvoiceRef, amount: unknown, extra: Record<string, unknown> = {}) => ({
  clientId: invoice.clientId,
  invoiceId: invoice.id,
  amount,
  receivedDate: RECEIVED,
  method: "check",
  ...extra
})

/** A refund body: kind refund, negative amount, naming the payment refunded. */
const refundOn = (invoice: InvoiceRef, original: { readonly id: string }, amount: number, extra: Record<string, unknown> = {}) =>
  paymentOn(invoice, amount, { kind: "refund", refundOfId: original.id, ...extra })

const record = (key: string, body: unknown) => post("/api/v1/payments", body, { key })

const recorded = (key: string, body: unknown) => created("/api/v1/payments", key, body)

const invoiceNow = (key: string, id: string) => fetched(`/api/v1/invoices/${id}`, key)

const paymentsOf = (key: string, invoiceId: string) =>
  Effect.map(fetched(`/api/v1/payments?invoiceId=${invoiceId}&pageSize=100`, key), (body) => body.data as Array<any>)

/** What a refusal must leave alone: the invoice and every payment of the organization. */
const snapshot = (key: string, invoiceId: string) =>
  Effect.gen(function*() {
    const invoice = yield* invoiceNow(key, invoiceId)
    const all = yield* get("/api/v1/payments?pageSize=100", { key })
    expect(all.status).toBe(200)
    return { invoice, payments: all.body }
  })

/** Newest first: createdAt descending, then id descending. */
const newestFirst = (payments: ReadonlyArray<any>) =>
  [...payments].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id)).map((p) => p.id)

/** In the order they happened: createdAt ascending, then id ascending. */
const chronological = (payments: ReadonlyArray<any>) =>
  [...payments].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))

// The server reads a real clock (the TestClock that it.effect provides would stop it at 1970): createdAt,
// updatedAt and paidAt are real moments, in the order things happened.
const clock = new ShiftedClock()

layer(makeTestServer({ clock }))("payments", (it) => {
  describe("recording payments", () => {
    it.effect("a payment on a sent invoice: the full payment is returned and read back, and the invoice's money moves", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(1000)
        const res = yield* record(key, {
          clientId: client.id,
          invoiceId: invoice.id,
          amount: 400,
          currency: "USD",
          receivedDate: RECEIVED,
          method: "bank_transfer",
          kind: "payment",
          reference: "TX-0001",
          notes: "First half"
        })
        expect(res.status).toBe(201)
        expect(res.body).toEqual({
          id: expect.stringMatching(UUID),
          clientId: client.id,
          invoiceId: invoice.id,
          saleId: null,
          amount: 400,
          currency: "USD",
          receivedDate: RECEIVED,
          method: "bank_transfer",
          status: "succeeded",
          kind: "payment",
          reference: "TX-0001",
          notes: "First half",
          netAmount: 400,
          payoutId: null,
          refundOfId: null,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
        expect(res.body.updatedAt).toBe(res.body.createdAt)
        const read = yield* get(`/api/v1/payments/${res.body.id}`, { key })
        expect(read.status).toBe(200)
        expect(read.body).toEqual(res.body)

        const after = yield* invoiceNow(key, invoice.id)
        expect(after).toEqual({
          ...invoice,
          amountPaid: 400,
          balanceDue: 600,
          status: "sent",
          paidAt: null,
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
        expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(invoice.updatedAt))
      }))

    it.effect("defaults: currency USD, kind payment, reference and notes null", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(50)
        const payment = yield* recorded(key, paymentOn(invoice, 20, { method: "cash" }))
        expect(payment).toMatchObject({ currency: "USD", kind: "payment", reference: null, notes: null, method: "cash", refundOfId: null, netAmount: 20 })
      }))

    it.effect("partial payments add up; the one that settles makes the invoice paid, paidAt its createdAt", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(1000)
        const first = yield* recorded(key, paymentOn(invoice, 250.25))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 250.25, balanceDue: 749.75, paidAt: null })
        const second = yield* recorded(key, paymentOn(invoice, 399.75, { method: "wire" }))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 650, balanceDue: 350, paidAt: null })
        const third = yield* recorded(key, paymentOn(invoice, 350, { method: "wallet_a" }))
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 1000, balanceDue: 0, overdue: false })
        expect(paid.paidAt).toBe(third.createdAt)
        expect((yield* paymentsOf(key, invoice.id)).map((p) => p.id)).toEqual(newestFirst([first, second, third]))
      }))

    it.effect("paying in full at once: status paid, paidAt = the payment's createdAt", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(199.99)
        const payment = yield* recorded(key, paymentOn(invoice, 199.99))
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 199.99, balanceDue: 0, paidAt: payment.createdAt })
        const listed = yield* get(`/api/v1/invoices?status=paid`, { key })
        expect(listed.body.data.map((i: any) => i.id)).toEqual([invoice.id])
      }))

    it.effect("cents add up exactly (0.10 + 0.20 settles 0.30)", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(0.3)
        yield* recorded(key, paymentOn(invoice, 0.1))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 0.1, balanceDue: 0.2 })
        const last = yield* recorded(key, paymentOn(invoice, 0.2))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", amountPaid: 0.3, balanceDue: 0, paidAt: last.createdAt })
      }))

    it.effect("overpayment: balanceDue goes negative, the invoice stays paid, paidAt stays the settling payment's", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        yield* recorded(key, paymentOn(invoice, 60))
        const settling = yield* recorded(key, paymentOn(invoice, 70))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", amountPaid: 130, balanceDue: -30, paidAt: settling.createdAt })
        // A paid invoice still takes money.
        yield* recorded(key, paymentOn(invoice, 5.55))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", amountPaid: 135.55, balanceDue: -35.55, paidAt: settling.createdAt })
      }))

    it.effect("a single payment above the total: paid with a negative balance", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 150))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", amountPaid: 150, balanceDue: -50, paidAt: payment.createdAt })
      }))
  })

  describe("refunds", () => {
    it.effect("a refund of a paid invoice reopens it: status sent, paidAt null, the balance back", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", paidAt: payment.createdAt })
        const res = yield* record(key, refundOn(invoice, payment, -40, { method: "bank_transfer", notes: "Damaged frame" }))
        expect(res.status).toBe(201)
        expect(res.body).toEqual({
          id: expect.stringMatching(UUID),
          clientId: client.id,
          invoiceId: invoice.id,
          saleId: null,
          amount: -40,
          currency: "USD",
          receivedDate: RECEIVED,
          method: "bank_transfer",
          status: "succeeded",
          kind: "refund",
          reference: null,
          notes: "Damaged frame",
          netAmount: -40,
          payoutId: null,
          refundOfId: payment.id,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
        expect((yield* get(`/api/v1/payments/${res.body.id}`, { key })).body).toEqual(res.body)
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", paidAt: null, amountPaid: 60, balanceDue: 40 })

        // Paid again by a new payment: paidAt is that payment's.
        const again = yield* recorded(key, paymentOn(invoice, 40))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "paid", paidAt: again.createdAt, amountPaid: 100, balanceDue: 0 })
      }))

    it.effect("refunds of one payment cannot exceed it: 409 and nothing recorded; up to the exact amount is fine", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        yield* recorded(key, refundOn(invoice, payment, -60))
        const before = yield* snapshot(key, invoice.id)
        expect(before.invoice).toMatchObject({ status: "sent", amountPaid: 40, balanceDue: 60 })

        expectError(yield* record(key, refundOn(invoice, payment, -40.01)), 409, "conflict")
        expectError(yield* record(key, refundOn(invoice, payment, -100)), 409, "conflict")
        expect(yield* snapshot(key, invoice.id)).toEqual(before)

        // Exactly what is left is fine; then not a cent more.
        yield* recorded(key, refundOn(invoice, payment, -40))
        const refunded = yield* snapshot(key, invoice.id)
        expect(refunded.invoice).toMatchObject({ status: "sent", amountPaid: 0, balanceDue: 100, paidAt: null })
        expectError(yield* record(key, refundOn(invoice, payment, -0.01)), 409, "conflict")
        expect(yield* snapshot(key, invoice.id)).toEqual(refunded)
      }))

    it.effect("a single refund above the payment is 409, even when the invoice holds more money", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const small = yield* recorded(key, paymentOn(invoice, 30))
        yield* recorded(key, paymentOn(invoice, 70))
        const before = yield* snapshot(key, invoice.id)
        expectError(yield* record(key, refundOn(invoice, small, -30.01)), 409, "conflict")
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
        yield* recorded(key, refundOn(invoice, small, -30))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 70, balanceDue: 30 })
      }))

    it.effect("concurrent refunds of one payment never exceed it together", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () => record(key, refundOn(invoice, payment, -30))),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 409, 409])
        for (const refused of answers.filter((a) => a.status !== 201)) expectError(refused, 409, "conflict")
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 10, balanceDue: 90, paidAt: null })
        expect(yield* paymentsOf(key, invoice.id)).toHaveLength(4)
      }))

    it.effect("refundOfId naming another invoice's payment or a refund is 400 invalid_payload; unknown is 400 linked_record_not_found", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(100)
        const other = yield* newInvoice(key, client.id, 100)
        const payment = yield* recorded(key, paymentOn(invoice, 50))
        const otherPayment = yield* recorded(key, paymentOn(other, 50))
        const refund = yield* recorded(key, refundOn(invoice, payment, -10))
        const theirs = yield* setup(100)
        const theirPayment = yield* recorded(theirs.key, paymentOn(theirs.invoice, 50))
        const before = yield* snapshot(key, invoice.id)

        expectInvalid(yield* record(key, refundOn(invoice, otherPayment, -10)), "refundOfId")
        expectInvalid(yield* record(key, refundOn(invoice, refund, -5)), "refundOfId")
        for (const unknown of [NIL, theirPayment.id]) {
          const res = yield* record(key, refundOn(invoice, { id: unknown }, -10))
          expectError(res, 400, "invalid_request", "linked_record_not_found")
          expect(res.body.error.details.field).toBe("refundOfId")
        }
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
        expect((yield* invoiceNow(key, other.id))).toMatchObject({ amountPaid: 50, balanceDue: 50 })
        expect((yield* invoiceNow(theirs.key, theirs.invoice.id))).toMatchObject({ amountPaid: 50, balanceDue: 50 })
      }))

    it.effect("the amount's sign and refundOfId must fit the kind; amount 0 and 3 decimals are 400; nothing changes", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        const before = yield* snapshot(key, invoice.id)
        const bad: Array<[unknown, string]> = [
          [paymentOn(invoice, -10, { kind: "refund" }), "refundOfId"],
          [refundOn(invoice, payment, 10), "amount"],
          [paymentOn(invoice, -10), "amount"],
          [paymentOn(invoice, -10, { kind: "payment" }), "amount"],
          [paymentOn(invoice, 10, { refundOfId: payment.id }), "refundOfId"],
          [paymentOn(invoice, 0), "amount"],
          [refundOn(invoice, payment, 0), "amount"],
          [paymentOn(invoice, 10.005), "amount"],
          [paymentOn(invoice, 0.001), "amount"],
          [refundOn(invoice, payment, -10.005), "amount"],
          [paymentOn(invoice, "10"), "amount"],
          [paymentOn(invoice, null), "amount"]
        ]
        for (const [body, field] of bad) {
          expectInvalid(yield* record(key, body), field)
        }
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
      }))

    it.effect("once fully refunded, the invoice can be voided (not before)", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        expectError(yield* patch(`/api/v1/invoices/${invoice.id}`, { status: "void" }, { key }), 409, "conflict")
        yield* recorded(key, refundOn(invoice, payment, -100))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 0, balanceDue: 100, paidAt: null })
        const voided = yield* patch(`/api/v1/invoices/${invoice.id}`, { status: "void" }, { key })
        expect(voided.status).toBe(200)
        expect(voided.body).toMatchObject({ id: invoice.id, status: "void", amountPaid: 0 })
        // A void invoice takes no more money.
        expectError(yield* record(key, paymentOn(invoice, 10)), 409, "conflict", "payment_target_not_collectible")
      }))
  })

  describe("refusals with detail codes change nothing", () => {
    it.effect("another client of the same organization: 400 payment_client_mismatch", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const stranger = yield* newClient(key, { name: "Stranger" })
        const before = yield* snapshot(key, invoice.id)
        const res = yield* record(key, paymentOn(invoice, 10, { clientId: stranger.id }))
        expectError(res, 400, "invalid_request", "payment_client_mismatch")
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
      }))

    it.effect("a currency other than the invoice's: 400 currency_locked; a malformed currency is invalid_payload", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const before = yield* snapshot(key, invoice.id)
        expectError(yield* record(key, paymentOn(invoice, 10, { currency: "EUR" })), 400, "invalid_request", "currency_locked")
        expectError(yield* record(key, paymentOn(invoice, 10, { currency: "JPY" })), 400, "invalid_request", "currency_locked")
        for (const currency of ["usd", "US", "USDX", "", 840, null]) {
          expectInvalid(yield* record(key, paymentOn(invoice, 10, { currency })), "currency")
        }
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
      }))

    it.effect("a draft or void invoice: 409 payment_target_not_collectible", () =>
      Effect.gen(function*() {
        const { client, key } = yield* setup(100)
        const draft = yield* newInvoice(key, client.id, 100, "draft")
        const toVoid = yield* newInvoice(key, client.id, 100)
        expect((yield* patch(`/api/v1/invoices/${toVoid.id}`, { status: "void" }, { key })).status).toBe(200)
        for (const target of [draft, toVoid]) {
          const before = yield* snapshot(key, target.id)
          expectError(yield* record(key, paymentOn(target, 10)), 409, "conflict", "payment_target_not_collectible")
          expect(yield* snapshot(key, target.id)).toEqual(before)
        }
        // A draft that took no payment can still be deleted.
        expect((yield* del(`/api/v1/invoices/${draft.id}`, { key })).status).toBe(204)
      }))

    it.effect("invoiceId or clientId of another organization: 400 linked_record_not_found naming the field; missing invoiceId: 400", () =>
      Effect.gen(function*() {
        const mine = yield* setup(100)
        const theirs = yield* setup(100)
        const before = yield* snapshot(mine.key, mine.invoice.id)
        const theirsBefore = yield* snapshot(theirs.key, theirs.invoice.id)
        const cases: Array<[unknown, string]> = [
          [paymentOn(theirs.invoice, 10, { clientId: mine.client.id }), "invoiceId"],
          [paymentOn(theirs.invoice, 10), "invoiceId"],
          [paymentOn({ id: NIL, clientId: mine.client.id }, 10), "invoiceId"],
          [paymentOn(mine.invoice, 10, { clientId: theirs.client.id }), "clientId"],
          [paymentOn(mine.invoice, 10, { clientId: NIL }), "clientId"]
        ]
        for (const [body, field] of cases) {
          const res = yield* record(mine.key, body)
          expectError(res, 400, "invalid_request", "linked_record_not_found")
          expect(res.body.error.details.field).toBe(field)
        }
        const { invoiceId: _invoiceId, ...withoutInvoice } = paymentOn(mine.invoice, 10)
        expectInvalid(yield* record(mine.key, withoutInvoice), "invoiceId")
        expect(yield* snapshot(mine.key, mine.invoice.id)).toEqual(before)
        expect(yield* snapshot(theirs.key, theirs.invoice.id)).toEqual(theirsBefore)
      }))

    it.effect("several rules broken at once: the first in the documented order answers", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(100)
        const stranger = yield* newClient(key, { name: "Stranger" })
        const draft = yield* newInvoice(key, client.id, 100, "draft")
        const another = yield* newInvoice(key, client.id, 100)
        const payment = yield* recorded(key, paymentOn(invoice, 100))
        const ghost = { id: NIL, clientId: client.id }
        const before = yield* snapshot(key, invoice.id)
        // The order: amount sign, refundOfId by kind, invoiceId, clientId, payment_client_mismatch,
        // currency_locked, payment_target_not_collectible, refundOfId unknown, refundOfId of another invoice
        // or of a refund, refunds beyond the payment. Each answer is summed up as "status detail field".
        const cases: Array<[string, unknown, string]> = [
          ["negative payment on an unknown invoice", paymentOn(ghost, -10), "400 invalid_payload amount"],
          ["positive refund on an unknown invoice", refundOn(ghost, payment, 10), "400 invalid_payload amount"],
          ["refund without refundOfId on an unknown invoice", paymentOn(ghost, -10, { kind: "refund" }), "400 invalid_payload refundOfId"],
          ["unknown invoice and unknown client", paymentOn(ghost, 10, { clientId: NIL }), "400 linked_record_not_found invoiceId"],
          ["other client and another currency", paymentOn(invoice, 10, { clientId: stranger.id, currency: "EUR" }), "400 payment_client_mismatch"],
          ["other client on a draft", paymentOn(draft, 10, { clientId: stranger.id }), "400 payment_client_mismatch"],
          ["another currency on a draft", paymentOn(draft, 10, { currency: "EUR" }), "400 currency_locked"],
          ["refund naming an unknown payment, on a draft", refundOn(draft, { id: NIL }, -10), "409 payment_target_not_collectible"],
          ["refund of another invoice's payment, on a draft", refundOn(draft, payment, -10), "409 payment_target_not_collectible"],
          ["refund of another invoice's payment beyond its amount", refundOn(another, payment, -500), "400 invalid_payload refundOfId"]
        ]
        const summary = (res: { status: number; body: any }) => {
          const details = res.body?.error?.details
          const field = details?.field ?? details?.issues?.[0]?.path?.[0]
          return [res.status, details?.code, ...(details?.code === "invalid_payload" || details?.code === "linked_record_not_found" ? [field] : [])].join(" ")
        }
        const got: Array<[string, string]> = []
        for (const [what, body] of cases) got.push([what, summary(yield* record(key, body))])
        expect(got).toEqual(cases.map(([what, , expected]) => [what, expected]))
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
      }))

    it.effect("bad bodies: method processor, kind chargeback, reference over 200, notes over 2000, missing and unknown fields are 400", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const before = yield* snapshot(key, invoice.id)
        const { clientId: _c, ...noClient } = paymentOn(invoice, 10)
        const { amount: _a, ...noAmount } = paymentOn(invoice, 10)
        const { receivedDate: _r, ...noDate } = paymentOn(invoice, 10)
        const { method: _m, ...noMethod } = paymentOn(invoice, 10)
        const bad: Array<[unknown, string]> = [
          [paymentOn(invoice, 10, { method: "processor" }), "method"],
          [paymentOn(invoice, 10, { method: "bitcoin" }), "method"],
          [paymentOn(invoice, 10, { kind: "chargeback" }), "kind"],
          [paymentOn(invoice, 10, { kind: "dispute_fee" }), "kind"],
          [paymentOn(invoice, 10, { reference: "r".repeat(201) }), "reference"],
          [paymentOn(invoice, 10, { notes: "n".repeat(2001) }), "notes"],
          [noClient, "clientId"],
          [noAmount, "amount"],
          [noDate, "receivedDate"],
          [noMethod, "method"],
          [paymentOn(invoice, 10, { receivedDate: "2026-02-30" }), "receivedDate"],
          [paymentOn(invoice, 10, { invoiceId: "not-a-uuid" }), "invoiceId"],
          [paymentOn(invoice, 10, { status: "succeeded" }), "status"],
          [paymentOn(invoice, 10, { saleId: NIL }), "saleId"],
          [paymentOn(invoice, 10, { id: NIL }), "id"],
          [paymentOn(invoice, 10, { netAmount: 10 }), "netAmount"],
          [paymentOn(invoice, 10, { foo: 1 }), "foo"]
        ]
        for (const [body, field] of bad) {
          expectInvalid(yield* record(key, body), field)
        }
        expect(yield* snapshot(key, invoice.id)).toEqual(before)

        // The bounds themselves are accepted.
        const edge = yield* recorded(key, paymentOn(invoice, 10, { reference: "r".repeat(200), notes: "n".repeat(2000) }))
        expect(edge.reference).toHaveLength(200)
        expect(edge.notes).toHaveLength(2000)
      }))
  })

  describe("concurrency", () => {
    it.effect("20 concurrent payments on one invoice: amountPaid is the exact sum", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(1000)
        const answers = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) => record(key, paymentOn(invoice, 12.34, { reference: `P-${i}` }))),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 201))
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ status: "sent", amountPaid: 246.8, balanceDue: 753.2, paidAt: null })
        const listed = yield* paymentsOf(key, invoice.id)
        expect(listed).toHaveLength(20)
        expect(new Set(listed.map((p) => p.reference)).size).toBe(20)
      }))

    it.effect("concurrent payments that together settle an invoice: paid once, with the exact sum", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () => record(key, paymentOn(invoice, 20))),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201])
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 100, balanceDue: 0 })
        // The settling payment is the last of them in the order they happened.
        expect(paid.paidAt).toBe(chronological(answers.map((a) => a.body))[4].createdAt)
      }))

    it.effect("concurrent payments beyond the total: paid, the balance negative by the excess, paidAt the one that crossed 0", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const answers = yield* Effect.all(
          Array.from({ length: 8 }, () => record(key, paymentOn(invoice, 25))),
          { concurrency: "unbounded" }
        )
        expect(answers.every((a) => a.status === 201)).toBe(true)
        const paid = yield* invoiceNow(key, invoice.id)
        expect(paid).toMatchObject({ status: "paid", amountPaid: 200, balanceDue: -100 })
        expect(paid.paidAt).toBe(chronological(answers.map((a) => a.body))[3].createdAt)
      }))
  })

  describe("updates", () => {
    it.effect("PATCH reference and notes: 200, updatedAt moves, nothing else changes", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 40))
        const invoiceBefore = yield* invoiceNow(key, invoice.id)
        yield* realSleep(20)
        const updated = yield* patch(`/api/v1/payments/${payment.id}`, { reference: "CHK-889", notes: "Deposited Monday" }, { key })
        expect(updated.status).toBe(200)
        expect(updated.body).toEqual({ ...payment, reference: "CHK-889", notes: "Deposited Monday", updatedAt: expect.stringMatching(TIMESTAMP) })
        expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(payment.updatedAt))
        expect((yield* get(`/api/v1/payments/${payment.id}`, { key })).body).toEqual(updated.body)

        const cleared = yield* patch(`/api/v1/payments/${payment.id}`, { reference: null, notes: null }, { key })
        expect(cleared.status).toBe(200)
        expect(cleared.body).toMatchObject({ reference: null, notes: null, amount: 40, createdAt: payment.createdAt })
        const same = yield* patch(`/api/v1/payments/${payment.id}`, {}, { key })
        expect(same.status).toBe(200)
        expect(same.body).toEqual(cleared.body)
        // The invoice's money is not touched by an edit of the payment.
        expect(yield* invoiceNow(key, invoice.id)).toEqual(invoiceBefore)
      }))

    it.effect("PATCH of amount, method, invoiceId, currency or any other recorded field: 409 record_immutable, nothing changes", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(100)
        const other = yield* newInvoice(key, client.id, 100)
        const payment = yield* recorded(key, paymentOn(invoice, 40, { reference: "Keep" }))
        const before = yield* snapshot(key, invoice.id)
        const cases: Array<[Record<string, unknown>, Array<string>]> = [
          [{ amount: 50 }, ["amount"]],
          [{ method: "cash" }, ["method"]],
          [{ invoiceId: other.id }, ["invoiceId"]],
          [{ currency: "EUR" }, ["currency"]],
          [{ currency: "USD" }, ["currency"]],
          [{ clientId: client.id }, ["clientId"]],
          [{ receivedDate: "2026-01-01" }, ["receivedDate"]],
          [{ kind: "refund" }, ["kind"]],
          [{ refundOfId: NIL }, ["refundOfId"]],
          [{ reference: "Changed", amount: 1 }, ["amount"]],
          [{ amount: 50, method: "cash", notes: "x" }, ["amount", "method"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* patch(`/api/v1/payments/${payment.id}`, body, { key })
          expectError(res, 409, "conflict", "record_immutable")
          expect([...res.body.error.details.fields].sort()).toEqual([...fields].sort())
        }
        expect((yield* get(`/api/v1/payments/${payment.id}`, { key })).body).toEqual(payment)
        expect(yield* snapshot(key, invoice.id)).toEqual(before)
        expect((yield* invoiceNow(key, other.id)).amountPaid).toBe(0)
      }))

    it.effect("PATCH with an unknown or read-only field, or a bad value: 400, nothing changes", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 40))
        const bad: Array<[unknown, string]> = [
          [{ foo: 1 }, "foo"],
          [{ id: NIL }, "id"],
          [{ status: "failed" }, "status"],
          [{ saleId: NIL }, "saleId"],
          [{ netAmount: 1 }, "netAmount"],
          [{ payoutId: NIL }, "payoutId"],
          [{ createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
          [{ updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"],
          [{ reference: "r".repeat(201) }, "reference"],
          [{ notes: "n".repeat(2001) }, "notes"],
          [{ reference: 5 }, "reference"]
        ]
        for (const [body, field] of bad) {
          expectInvalid(yield* patch(`/api/v1/payments/${payment.id}`, body, { key }), field)
        }
        expect((yield* get(`/api/v1/payments/${payment.id}`, { key })).body).toEqual(payment)
      }))

    it.effect("DELETE is 405 method_not_allowed with an Allow header; the payment stays", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 40))
        const res = yield* del(`/api/v1/payments/${payment.id}`, { key })
        expectError(res, 405, "method_not_allowed")
        const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim()).sort()
        expect(allow).toEqual(["GET", "PATCH"])
        const collection = yield* del("/api/v1/payments", { key })
        expectError(collection, 405, "method_not_allowed")
        expect((collection.headers.get("allow") ?? "").split(",").map((m) => m.trim()).sort()).toEqual(["GET", "POST"])
        expect((yield* get(`/api/v1/payments/${payment.id}`, { key })).body).toEqual(payment)
        expect((yield* invoiceNow(key, invoice.id)).amountPaid).toBe(40)
      }))

    it.effect("another organization's payment is 404 on GET and PATCH, and never listed", () =>
      Effect.gen(function*() {
        const mine = yield* setup(100)
        const theirs = yield* setup(100)
        const payment = yield* recorded(theirs.key, paymentOn(theirs.invoice, 40, { reference: "Theirs" }))
        expectError(yield* get(`/api/v1/payments/${payment.id}`, { key: mine.key }), 404, "not_found")
        expectError(yield* patch(`/api/v1/payments/${payment.id}`, { reference: "Mine" }, { key: mine.key }), 404, "not_found")
        expectError(yield* patch(`/api/v1/payments/${payment.id}`, { amount: 1 }, { key: mine.key }), 404, "not_found")
        expectError(yield* get(`/api/v1/payments/${NIL}`, { key: mine.key }), 404, "not_found")
        expectError(yield* get("/api/v1/payments/not-a-uuid", { key: mine.key }), 404, "not_found")
        expectError(yield* patch(`/api/v1/payments/${NIL}`, { reference: "x" }, { key: mine.key }), 404, "not_found")
        expect((yield* get("/api/v1/payments", { key: mine.key })).body.data).toEqual([])
        expect((yield* get(`/api/v1/payments?invoiceId=${theirs.invoice.id}`, { key: mine.key })).body.data).toEqual([])
        expect((yield* get(`/api/v1/payments?clientId=${theirs.client.id}`, { key: mine.key })).body.data).toEqual([])
        expect((yield* get(`/api/v1/payments/${payment.id}`, { key: theirs.key })).body).toEqual(payment)
      }))
  })

  describe("lists", () => {
    it.effect("filters invoiceId, clientId and saleId; pagination newest first; 400 on bad filter values", () =>
      Effect.gen(function*() {
        const { client, invoice, key } = yield* setup(1000)
        const otherClient = yield* newClient(key, { name: "Other" })
        const otherInvoice = yield* newInvoice(key, otherClient.id, 1000)
        const a1 = yield* recorded(key, paymentOn(invoice, 10))
        const b1 = yield* recorded(key, paymentOn(otherInvoice, 20))
        const a2 = yield* recorded(key, paymentOn(invoice, 30))
        const aRefund = yield* recorded(key, refundOn(invoice, a1, -5))
        const b2 = yield* recorded(key, paymentOn(otherInvoice, 40))
        const all = [a1, b1, a2, aRefund, b2]
        const ofA = [a1, a2, aRefund]
        const ofB = [b1, b2]

        const list = yield* get("/api/v1/payments", { key })
        expect(list.status).toBe(200)
        expect(list.body.data.map((p: any) => p.id)).toEqual(newestFirst(all))
        expect(list.body.pagination).toEqual({ page: 1, pageSize: 25, total: 5, totalPages: 1, hasMore: false })
        expect(list.body.data.find((p: any) => p.id === a2.id)).toEqual(a2)

        expect((yield* get(`/api/v1/payments?invoiceId=${invoice.id}`, { key })).body.data.map((p: any) => p.id)).toEqual(newestFirst(ofA))
        expect((yield* get(`/api/v1/payments?invoiceId=${otherInvoice.id}`, { key })).body.data.map((p: any) => p.id)).toEqual(newestFirst(ofB))
        expect((yield* get(`/api/v1/payments?clientId=${client.id}`, { key })).body.data.map((p: any) => p.id)).toEqual(newestFirst(ofA))
        expect((yield* get(`/api/v1/payments?clientId=${otherClient.id}&invoiceId=${otherInvoice.id}`, { key })).body.data.map((p: any) => p.id))
          .toEqual(newestFirst(ofB))
        expect((yield* get(`/api/v1/payments?clientId=${client.id}&invoiceId=${otherInvoice.id}`, { key })).body.data).toEqual([])
        expect((yield* get(`/api/v1/payments?invoiceId=${NIL}`, { key })).body.data).toEqual([])
        const bySale = yield* get(`/api/v1/payments?saleId=${crypto.randomUUID()}`, { key })
        expect(bySale.status).toBe(200)
        expect(bySale.body).toEqual({ data: [], pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false } })

        const page2 = yield* get("/api/v1/payments?pageSize=2&page=2", { key })
        expect(page2.body.data.map((p: any) => p.id)).toEqual(newestFirst(all).slice(2, 4))
        expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
        const page3 = yield* get("/api/v1/payments?pageSize=2&page=3", { key })
        expect(page3.body.data.map((p: any) => p.id)).toEqual(newestFirst(all).slice(4))
        expect(page3.body.pagination).toEqual({ page: 3, pageSize: 2, total: 5, totalPages: 3, hasMore: false })
        const past = yield* get("/api/v1/payments?pageSize=2&page=9", { key })
        expect(past.body).toEqual({ data: [], pagination: { page: 9, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })

        for (
          const query of [
            "invoiceId=abc",
            "invoiceId=",
            "clientId=abc",
            "saleId=abc",
            "saleId=",
            "updatedSince=yesterday",
            "pageSize=0",
            "pageSize=101",
            "page=0",
            "page=1.5"
          ]
        ) {
          expectError(yield* get(`/api/v1/payments?${query}`, { key }), 400, "invalid_request")
        }
      }))
  })

  describe("access", () => {
    it.effect("payments:read cannot record or edit (403 naming payments:write); payments:write cannot read (403); no key is 401", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { invoice, key } = yield* setup(100)
        const payment = yield* recorded(key, paymentOn(invoice, 10))

        const reader = yield* server.organization(["payments:read"])
        expect((yield* get("/api/v1/payments", { key: reader.apiKey })).status).toBe(200)
        for (
          const res of [
            yield* record(reader.apiKey, paymentOn(invoice, 10)),
            yield* patch(`/api/v1/payments/${NIL}`, { reference: "x" }, { key: reader.apiKey })
          ]
        ) {
          expectError(res, 403, "forbidden")
          expect(res.body.error.message).toContain("payments:write")
        }

        const writer = yield* server.organization(["payments:write", "clients:write", "invoices:write"])
        for (const res of [yield* get("/api/v1/payments", { key: writer.apiKey }), yield* get(`/api/v1/payments/${NIL}`, { key: writer.apiKey })]) {
          expectError(res, 403, "forbidden")
          expect(res.body.error.message).toContain("payments:read")
        }
        // payments:write alone (with what it takes to make the invoice) records a payment.
        const writerClient = yield* newClient(writer.apiKey)
        const writerInvoice = yield* newInvoice(writer.apiKey, writerClient.id, 100)
        expect((yield* record(writer.apiKey, paymentOn(writerInvoice, 10))).status).toBe(201)

        const invoicesOnly = yield* server.organization(["invoices:read", "invoices:write"])
        expectError(yield* record(invoicesOnly.apiKey, paymentOn(invoice, 10)), 403, "forbidden")
        expectError(yield* get("/api/v1/payments", { key: invoicesOnly.apiKey }), 403, "forbidden")

        const missing = yield* get("/api/v1/payments")
        expectError(missing, 401, "unauthorized")
        expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
        expectError(yield* post("/api/v1/payments", paymentOn(invoice, 10)), 401, "unauthorized")
        expectError(yield* get(`/api/v1/payments/${payment.id}`), 401, "unauthorized")
        expectError(yield* patch(`/api/v1/payments/${payment.id}`, { reference: "x" }), 401, "unauthorized")
        expectError(yield* record("bok_nope", paymentOn(invoice, 10)), 401, "unauthorized")

        expect(yield* paymentsOf(key, invoice.id)).toEqual([payment])
        expect((yield* invoiceNow(key, invoice.id)).amountPaid).toBe(10)
      }))
  })

  describe("idempotency", () => {
    it.effect("a replayed POST returns the same payment and does not count twice on the invoice", () =>
      Effect.gen(function*() {
        const { invoice, key } = yield* setup(100)
        const body = paymentOn(invoice, 30, { reference: "once" })
        const first = yield* post("/api/v1/payments", body, { key, headers: { "idempotency-key": "pay-1" } })
        expect(first.status).toBe(201)
        const again = yield* post("/api/v1/payments", body, { key, headers: { "idempotency-key": "pay-1" } })
        expect(again.status).toBe(201)
        expect(again.body).toEqual(first.body)
        expect(again.headers.get("idempotent-replayed")).toBe("true")
        const replayedConcurrently = yield* Effect.all(
          Array.from({ length: 3 }, () => post("/api/v1/payments", body, { key, headers: { "idempotency-key": "pay-1" } })),
          { concurrency: "unbounded" }
        )
        for (const res of replayedConcurrently) expect(res.body).toEqual(first.body)

        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ amountPaid: 30, balanceDue: 70, status: "sent" })
        expect((yield* paymentsOf(key, invoice.id)).map((p) => p.id)).toEqual([first.body.id])

        // The same key with another body is refused and records nothing.
        expectError(
          yield* post("/api/v1/payments", paymentOn(invoice, 70), { key, headers: { "idempotency-key": "pay-1" } }),
          409,
          "idempotency_key_reused"
        )
        // A fresh key is a new payment.
        const second = yield* post("/api/v1/payments", body, { key, headers: { "idempotency-key": "pay-2" } })
        expect(second.status).toBe(201)
        expect(second.body.id).not.toBe(first.body.id)
        expect(yield* invoiceNow(key, invoice.id)).toMatchObject({ amountPaid: 60, balanceDue: 40 })
      }))
  })
})
