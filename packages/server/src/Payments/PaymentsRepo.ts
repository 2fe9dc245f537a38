import {
  ClientId,
  fractionDigits,
  fromMinorUnits,
  InvoiceId,
  type PageRequest,
  Payment,
  PaymentId,
  type PaymentKind,
  type PaymentMethod,
  type PaymentStatus,
  type Principal,
  type RefundedPayment,
  SaleId
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { FastSql } from "../Sql/Fast.js"
import { conditions, findRow, getOf, listOf } from "../Sql/Lists.js"

export interface PaymentRow {
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

export const toPayment = (row: PaymentRow) => {
  const digits = fractionDigits(row.currency)
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

/** A new payment's row, as the `Payments` service decided it (amounts in minor units). */
export interface NewPaymentRow {
  readonly clientId: string
  readonly invoiceId: string
  readonly amountMinor: number
  readonly currency: string
  readonly receivedDate: string
  readonly method: PaymentMethod
  readonly kind: PaymentKind
  readonly reference: string | null
  readonly notes: string | null
  readonly refundOfId: string | null
  readonly at: Date
}

/** The filters of the payment list. */
export interface PaymentFilters {
  readonly saleId?: string | undefined
  readonly invoiceId?: string | undefined
  readonly clientId?: string | undefined
  readonly updatedSince?: Date | undefined
}

const makePaymentsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql

  const list = (principal: Principal, filters: PaymentFilters, page: PageRequest) =>
    listOf(fast, "payments", conditions(
      ["organization_id = ?", principal.organizationId],
      ["sale_id = ?", filters.saleId],
      ["invoice_id = ?", filters.invoiceId],
      ["client_id = ?", filters.clientId],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toPayment)

  const get = (principal: Principal, id: PaymentId) =>
    getOf(fast, "payments", principal.organizationId, id, "payment", toPayment)

  /** Whether the organization has the client. */
  const clientExists = (principal: Principal, clientId: string) =>
    Effect.map(
      fast.rows(`SELECT 1 FROM clients WHERE organization_id = $1 AND id = $2`, [principal.organizationId, clientId]),
      (rows) => rows.length > 0
    )

  /** The payment a refund names, with what its succeeded refunds already took back (minor units). */
  const refundedPayment = (principal: Principal, id: string) =>
    Effect.map(
      fast.rows<RefundedPayment>(
        `SELECT p.kind, p.status, p.invoice_id, p.amount_minor AS amount,
           (SELECT COALESCE(-sum(r.amount_minor), 0) FROM payments r
            WHERE r.organization_id = p.organization_id AND r.refund_of_id = p.id AND r.status = 'succeeded') AS refunded
         FROM payments p WHERE p.organization_id = $1 AND p.id = $2`,
        [principal.organizationId, id]
      ),
      ([row]): RefundedPayment | undefined => row
    )

  /** Inserts a succeeded payment (its net amount is its amount) and returns it. */
  const insert = (principal: Principal, row: NewPaymentRow) =>
    Effect.map(
      fast.rows<PaymentRow>(
        `INSERT INTO payments (id, organization_id, client_id, invoice_id, amount_minor, currency, received_date, method,
           status, kind, reference, notes, net_amount_minor, refund_of_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'succeeded', $9, $10, $11, $5, $12, $13, $13)
         RETURNING *`,
        [
          randomUUID(),
          principal.organizationId,
          row.clientId,
          row.invoiceId,
          row.amountMinor,
          row.currency,
          row.receivedDate,
          row.method,
          row.kind,
          row.reference,
          row.notes,
          row.refundOfId,
          row.at
        ]
      ),
      ([inserted]) => toPayment(inserted)
    )

  /** The payment's row, locked (FOR UPDATE) until the transaction ends. */
  const lock = (principal: Principal, id: string) => findRow<PaymentRow>(fast, "payments", principal.organizationId, id, true)

  /** Writes the named columns of a payment (camelCase names) and returns it. */
  const updateColumns = (principal: Principal, id: string, columns: Record<string, unknown>) =>
    Effect.map(
      sql<PaymentRow>`UPDATE payments SET ${sql.update(columns)} WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`,
      ([row]) => toPayment(row)
    )

  return { list, get, clientExists, refundedPayment, insert, lock, updateColumns } as const
})

/**
 * The payments' SQL, always scoped by the caller's organization: rows in and out, no rules and no other
 * resource's repository (the `Payments` service orchestrates; see Payments.ts).
 */
export class PaymentsRepo extends Context.Service<PaymentsRepo, Effect.Success<typeof makePaymentsRepo>>()("@bizops/server/PaymentsRepo") {
  static readonly layer = Layer.effect(PaymentsRepo, makePaymentsRepo)
}
