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

  /**
   * Inserts succeeded payments (a net amount is its amount), in one statement, and returns them in the
   * order given (an import inserts a file's payments at once).
   */
  const insertMany = (owner: Owner, rows: ReadonlyArray<NewPaymentRow>) => {
    const ids = rows.map(() => randomUUID())
    return rows.length === 0 ? Effect.succeed([]) : Effect.map(
      fast.rows<PaymentRow>(
        `INSERT INTO payments (id, organization_id, client_id, invoice_id, sale_id, amount_minor, currency, received_date, method,
           status, kind, reference, notes, net_amount_minor, refund_of_id, created_at, updated_at)
         SELECT r.id, $1, r.client_id, r.invoice_id, r.sale_id, r.amount, r.currency, r.received_date, r.method,
           'succeeded', r.kind, r.reference, r.notes, r.amount, r.refund_of_id, r.at, r.at
         FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, client_id uuid, invoice_id uuid, sale_id uuid, amount bigint,
           currency text, received_date date, method text, kind text, reference text, notes text, refund_of_id uuid, at timestamptz, n bigint)
         ORDER BY r.n
         RETURNING *`,
        [owner.organizationId, JSON.stringify(rows.map((row, i) => ({
          n: i,
          id: ids[i],
          client_id: row.clientId,
          invoice_id: row.invoiceId,
          sale_id: row.saleId ?? null,
          amount: row.amountMinor,
          currency: row.currency,
          received_date: row.receivedDate,
          method: row.method,
          kind: row.kind,
          reference: row.reference,
          notes: row.notes,
          refund_of_id: row.refundOfId,
          at: row.at.toISOString()
        })))]
      ),
      (inserted) => {
        const byId = new Map<string, Payment>(inserted.map((row) => [row.id, toPayment(row)]))
        return ids.flatMap((id) => byId.get(id) ?? [])
      }
    )
  }

  /** Inserts a succeeded payment (its net amount is its amount) and returns it. */
  const insert = (owner: Owner, row: NewPaymentRow) =>
    Effect.flatMap(insertMany(owner, [row]), ([payment]) => payment === undefined ? Effect.die(new Error("the payment was not inserted")) : Effect.succeed(payment))

  /** The payment's row, locked (FOR UPDATE) until the transaction ends. */
  const lock = (principal: Principal, id: string) => findRow<PaymentRow>(fast, "payments", principal.organizationId, id, true)

  /** Writes the named columns of a payment (camelCase names) and returns it. */
  const updateColumns = (principal: Principal, id: string, columns: Record<string, unknown>) =>
    Effect.map(
      sql<PaymentRow>`UPDATE payments SET ${sql.update(columns)} WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`,
      ([row]) => toPayment(row)
    )

  return { list, get, clientExists, refundedPayment, insert, insertMany, lock, updateColumns } as const
})

/**
 * The payments' SQL, always scoped by the caller's organization: rows in and out, no rules and no other
 * resource's repository (the `Payments` service orchestrates; see Payments.ts).
 */
export class PaymentsRepo extends Context.Service<PaymentsRepo, Effect.Success<typeof makePaymentsRepo>>()("@bizops/server/PaymentsRepo") {
  static readonly layer = Layer.effect(PaymentsRepo, makePaymentsRepo)
}
