import {
  checkMoney,
  checkRequestShape,
  checkTarget,
  Conflict,
  fractionDigits,
  hasAtMostDigits,
  immutableFieldsIn,
  invalidPayload,
  linkedRecordNotFound,
  notFound,
  orRefuse,
  type PageRequest,
  type PaymentCreate,
  type PaymentId,
  type PaymentUpdate,
  type Principal,
  type RefundedPayment,
  toMinorUnits
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Invoices } from "../Invoices/Invoices.js"
import { InvoicesRepo } from "../Invoices/InvoicesRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { definedOnly } from "../Sql/Lists.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { type PaymentFilters, PaymentsRepo, toPayment } from "./PaymentsRepo.js"

const makePayments = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const payments = yield* PaymentsRepo
  const invoices = yield* Invoices
  const outbox = yield* Outbox

  const list = (filters: PaymentFilters, page: PageRequest) => payments.list(filters, page)

  const get = (id: PaymentId) => payments.get(id)

  const create = (principal: Principal, input: PaymentCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const kind = input.kind ?? "payment"
        // The checks in the domain's order: the request alone, the invoice, then the money.
        yield* orRefuse(checkRequestShape({ kind, amount: input.amount, refundOfId: input.refundOfId }))
        if (input.invoiceId === undefined) {
          return yield* Effect.fail(invalidPayload(["invoiceId"], "is required: a payment is recorded against an invoice (a sale carries its own payment)"))
        }
        const invoice = yield* invoices.lockForPayment(principal, input.invoiceId)
        if (invoice === undefined) return yield* Effect.fail(linkedRecordNotFound("invoiceId", "invoice"))
        if (!(yield* payments.clientExists(principal, input.clientId))) return yield* Effect.fail(linkedRecordNotFound("clientId", "client"))
        // Without a currency, the invoice's (the organization's when the invoice was created).
        const currency = input.currency ?? invoice.currency
        const digits = fractionDigits(invoice.currency)
        const request = { kind, amount: toMinorUnits(input.amount, digits), currency, clientId: input.clientId, refundOfId: input.refundOfId }
        const target = { id: invoice.id, status: invoice.status, clientId: invoice.clientId, currency: invoice.currency, amountPaid: invoice.amountPaidMinor }
        yield* orRefuse(checkTarget(request, target))
        if (!hasAtMostDigits(input.amount, digits)) {
          return yield* Effect.fail(invalidPayload(["amount"], `must have at most ${digits} decimal places in ${currency}`))
        }
        let original: RefundedPayment | undefined
        if (input.refundOfId !== undefined) {
          const row = yield* payments.refundedPayment(principal, input.refundOfId)
          if (row === undefined) return yield* Effect.fail(linkedRecordNotFound("refundOfId", "payment"))
          original = row
        }
        yield* orRefuse(checkMoney(request, target, original))
        const payment = yield* payments.insert(principal, {
          clientId: input.clientId,
          invoiceId: invoice.id,
          amountMinor: request.amount,
          currency,
          receivedDate: input.receivedDate,
          method: input.method,
          kind,
          reference: input.reference ?? null,
          notes: input.notes ?? null,
          refundOfId: input.refundOfId ?? null,
          at
        })
        const { after } = yield* invoices.settleAfterPayment(principal, invoice, at)
        yield* outbox.created(principal, "payment", payment)
        if (kind === "refund") {
          yield* outbox.record(principal, "invoice_refunded", after, {
            refund: { paymentId: payment.id, amount: -payment.amount, method: payment.method, reason: payment.notes }
          })
        }
        return payment
      })
    ).pipe(refuseViolations)

  const update = (principal: Principal, id: PaymentId, input: PaymentUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* payments.lock(principal, id)
        if (current === undefined) return yield* Effect.fail(notFound("payment"))
        const immutable = immutableFieldsIn(input)
        if (immutable.length > 0) {
          return yield* Effect.fail(
            new Conflict({
              message: `A payment cannot change after it is recorded, except its reference and notes (${immutable.join(", ")} named)`,
              details: { code: "record_immutable", fields: immutable }
            })
          )
        }
        const values = definedOnly({ reference: input.reference, notes: input.notes })
        if (Object.keys(values).length === 0) return toPayment(current)
        const before = toPayment(current)
        const updated = yield* payments.updateColumns(principal, id, { ...values, updatedAt: new Date(yield* Clock.currentTimeMillis) })
        yield* outbox.updated(principal, "payment", before, updated)
        return updated
      })
    ).pipe(refuseViolations)

  return { list, get, create, update } as const
})

/**
 * Payments, refunds and adjustments, always scoped by the caller's organization. Recording one locks
 * its invoice's row (through the `Invoices` service), checks the domain's payment rules, inserts it
 * and re-derives the invoice's money and status, all in one transaction, so that concurrent payments
 * never lose an update.
 */
export class Payments extends Context.Service<Payments, Effect.Success<typeof makePayments>>()("@bizops/server/Payments") {
  static readonly layer = Layer.effect(Payments, makePayments).pipe(Layer.provide(Invoices.layer), Layer.provide(InvoicesRepo.layer))
}
