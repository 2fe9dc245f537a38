import {
  type Filters,
  fractionDigits,
  fromMinorUnits,
  type PageRequest,
  Payment,
  PaymentId,
  type PaymentListParams,
  type PaymentKind,
  type PaymentMethod,
  type Principal,
  type RefundedPayment
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { FastSql } from "../Sql/Fast.js"
import { byFilters, findRow } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { Owner } from "../Webhooks/Outbox.js"
import type { RowOf } from "../Sql/Rows.js"

export type PaymentRow = Omit<RowOf<typeof Payment>, "amount" | "netAmount"> & {
  readonly amountMinor: number
  readonly netAmountMinor: number | null
}

/** Amounts are stored in minor units of the payment's currency. */
export const toPayment = (row: PaymentRow) => {
  const digits = fractionDigits(row.currency)
  return new Payment({
    ...row,
    amount: fromMinorUnits(row.amountMinor, digits),
    netAmount: row.netAmountMinor === null ? null : fromMinorUnits(row.netAmountMinor, digits)
  }, { disableChecks: true })
}

/** A new payment's row, as the `Payments` service decided it (amounts in minor units). */
export interface NewPaymentRow {
  readonly clientId: string | null
  /** The invoice it settles, or null for a sale's payment and refunds (`saleId`). */
  readonly invoiceId: string | null
  readonly saleId?: string | null
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

export type PaymentFilters = Filters<typeof PaymentListParams>

const makePaymentsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql

  const payments = yield* makeResource({ table: "payments", what: "payment", toResource: toPayment })

  const list = (filters: PaymentFilters, page: PageRequest) => payments.list(byFilters(filters), page)

  const get = (id: PaymentId) => payments.get(id)

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
  const insert = (owner: Owner, row: NewPaymentRow) =>
    Effect.map(
      fast.rows<PaymentRow>(
        `INSERT INTO payments (id, organization_id, client_id, invoice_id, sale_id, amount_minor, currency, received_date, method,
           status, kind, reference, notes, net_amount_minor, refund_of_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $14, $5, $6, $7, $8, 'succeeded', $9, $10, $11, $5, $12, $13, $13)
         RETURNING *`,
        [
          randomUUID(),
          owner.organizationId,
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
          row.at,
          row.saleId ?? null
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
