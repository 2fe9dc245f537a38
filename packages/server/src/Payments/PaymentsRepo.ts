import {
  checkMoney,
  checkRequestShape,
  checkTarget,
  ClientId,
  Conflict,
  DEFAULT_CURRENCY,
  fromMinorUnits,
  hasAtMostDigits,
  immutableFieldsIn,
  InvalidRequest,
  invalidPayload,
  InvoiceId,
  linkedRecordNotFound,
  notFound,
  type PageRequest,
  Payment,
  type PaymentCreate,
  PaymentId,
  type PaymentKind,
  type PaymentMethod,
  type PaymentRefusal,
  type PaymentStatus,
  type PaymentUpdate,
  type Principal,
  type RefundedPayment,
  SaleId,
  toMinorUnits
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { digitsOf, InvoicesRepo } from "../Invoices/InvoicesRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { conditions, definedOnly, findRow, getOf, listOf } from "../Sql/Lists.js"
import { Outbox } from "../Webhooks/Outbox.js"

interface PaymentRow {
  readonly id: string
  readonly clientId: string | null
  readonly invoiceId: string | null
  readonly saleId: string | null
  readonly amountMinor: number
  readonly currency: string
  readonly receivedDate: string
  readonly method: PaymentMethod
  readonly status: PaymentStatus
  readonly kind: PaymentKind
  readonly reference: string | null
  readonly notes: string | null
  readonly netAmountMinor: number | null
  readonly payoutId: string | null
  readonly refundOfId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toPayment = (row: PaymentRow) => {
  const digits = digitsOf(row.currency)
  return new Payment({
    id: PaymentId.make(row.id, { disableChecks: true }),
    clientId: row.clientId === null ? null : ClientId.make(row.clientId, { disableChecks: true }),
    invoiceId: row.invoiceId === null ? null : InvoiceId.make(row.invoiceId, { disableChecks: true }),
    saleId: row.saleId === null ? null : SaleId.make(row.saleId, { disableChecks: true }),
    amount: fromMinorUnits(row.amountMinor, digits),
    currency: row.currency,
    receivedDate: row.receivedDate,
    method: row.method,
    status: row.status,
    kind: row.kind,
    reference: row.reference,
    notes: row.notes,
    netAmount: row.netAmountMinor === null ? null : fromMinorUnits(row.netAmountMinor, digits),
    payoutId: row.payoutId,
    refundOfId: row.refundOfId === null ? null : PaymentId.make(row.refundOfId, { disableChecks: true }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })
}

/** A refusal of the payment rules, as the API answers it. */
const refused = (refusal: PaymentRefusal) =>
  refusal.status === 409
    ? new Conflict({ message: refusal.message, ...(refusal.detail === undefined ? {} : { details: { code: refusal.detail } }) })
    : refusal.detail === "invalid_payload" || refusal.detail === undefined
    ? invalidPayload([refusal.field ?? "body"], refusal.message.replace(/^[a-zA-Z]+: /, ""))
    : new InvalidRequest({ message: refusal.message, details: { code: refusal.detail, ...(refusal.field === undefined ? {} : { field: refusal.field }) } })

const makePaymentsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const invoices = yield* InvoicesRepo

  const list = (
    principal: Principal,
    filters: {
      readonly saleId?: string | undefined
      readonly invoiceId?: string | undefined
      readonly clientId?: string | undefined
      readonly updatedSince?: Date | undefined
    },
    page: PageRequest
  ) =>
    listOf(fast, "payments", conditions(
      ["organization_id = ?", principal.organizationId],
      ["sale_id = ?", filters.saleId],
      ["invoice_id = ?", filters.invoiceId],
      ["client_id = ?", filters.clientId],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toPayment)

  const get = (principal: Principal, id: PaymentId) =>
    getOf(fast, "payments", principal.organizationId, id, "payment", toPayment)

  const create = (principal: Principal, input: PaymentCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const kind = input.kind ?? "payment"
        const currency = input.currency ?? DEFAULT_CURRENCY
        // The checks in the domain's order: the request alone, the invoice, then the money.
        const shape = checkRequestShape({ kind, amount: input.amount, currency, clientId: input.clientId, refundOfId: input.refundOfId })
        if (Result.isFailure(shape)) return yield* Effect.fail(refused(shape.failure))
        if (input.invoiceId === undefined) {
          return yield* Effect.fail(invalidPayload(["invoiceId"], "is required: a payment is recorded against an invoice (a sale carries its own payment)"))
        }
        const invoice = yield* invoices.findInvoice(principal, input.invoiceId, true)
        if (invoice === undefined) return yield* Effect.fail(linkedRecordNotFound("invoiceId", "invoice"))
        const [client] = yield* fast.rows(`SELECT 1 FROM clients WHERE organization_id = $1 AND id = $2`, [principal.organizationId, input.clientId])
        if (client === undefined) return yield* Effect.fail(linkedRecordNotFound("clientId", "client"))
        const digits = digitsOf(invoice.currency)
        const request = { kind, amount: toMinorUnits(input.amount, digits), currency, clientId: input.clientId, refundOfId: input.refundOfId }
        const target = { id: invoice.id, status: invoice.status, clientId: invoice.clientId, currency: invoice.currency, amountPaid: invoice.amountPaidMinor }
        const fits = checkTarget(request, target)
        if (Result.isFailure(fits)) return yield* Effect.fail(refused(fits.failure))
        if (!hasAtMostDigits(input.amount, digits)) {
          return yield* Effect.fail(invalidPayload(["amount"], `must have at most ${digits} decimal places in ${currency}`))
        }
        let original: RefundedPayment | undefined
        if (input.refundOfId !== undefined) {
          const [row] = yield* fast.rows<RefundedPayment>(
            `SELECT p.kind, p.status, p.invoice_id, p.amount_minor AS amount,
               (SELECT COALESCE(-sum(r.amount_minor), 0) FROM payments r
                WHERE r.organization_id = p.organization_id AND r.refund_of_id = p.id AND r.status = 'succeeded') AS refunded
             FROM payments p WHERE p.organization_id = $1 AND p.id = $2`,
            [principal.organizationId, input.refundOfId]
          )
          if (row === undefined) return yield* Effect.fail(linkedRecordNotFound("refundOfId", "payment"))
          original = row
        }
        const money = checkMoney(request, target, original)
        if (Result.isFailure(money)) return yield* Effect.fail(refused(money.failure))
        const amount = request.amount
        const [row] = yield* fast.rows<PaymentRow>(
          `INSERT INTO payments (id, organization_id, client_id, invoice_id, amount_minor, currency, received_date, method,
             status, kind, reference, notes, net_amount_minor, refund_of_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'succeeded', $9, $10, $11, $5, $12, $13, $13)
           RETURNING *`,
          [
            randomUUID(),
            principal.organizationId,
            input.clientId,
            invoice.id,
            amount,
            currency,
            input.receivedDate,
            input.method,
            kind,
            input.reference ?? null,
            input.notes ?? null,
            input.refundOfId ?? null,
            at
          ]
        )
        const payment = toPayment(row)
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
        const current = yield* findRow<PaymentRow>(fast, "payments", principal.organizationId, id, true)
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
        const [row] = yield* sql<PaymentRow>`UPDATE payments SET ${sql.update({ ...values, updatedAt: new Date(yield* Clock.currentTimeMillis) })}
          WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
        const before = toPayment(current)
        const updated = toPayment(row)
        yield* outbox.updated(principal, "payment", before, updated)
        return updated
      })
    ).pipe(refuseViolations)

  return { list, get, create, update } as const
})

/**
 * Payments, refunds and adjustments, always scoped by the caller's organization. Recording one locks
 * its invoice's row, checks the domain's payment rules, inserts it and re-derives the invoice's money
 * and status, all in one transaction, so that concurrent payments never lose an update.
 */
export class PaymentsRepo extends Context.Service<PaymentsRepo, Effect.Success<typeof makePaymentsRepo>>()("@bizops/server/PaymentsRepo") {
  static readonly layer = Layer.effect(PaymentsRepo, makePaymentsRepo).pipe(Layer.provide(InvoicesRepo.layer))
}
