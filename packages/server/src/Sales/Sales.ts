/**
 * What changes a sale once imported: a refund or a void (contract, "Sales (read-only)": the operator
 * commands `sale refund` and `sale void`), and the books lines that the import, the refund and the void
 * write. The rules are the domain's (`refundSale`, `voidSale`, `saleEntries` and the reversals in
 * Books.ts); here they are applied to the locked row, in one transaction with their payment, books
 * lines and events.
 */
import {
  type BookEntry,
  Conflict,
  notFound,
  orRefuse,
  type PaymentMethod,
  refundAmountMinor,
  refundSale,
  type Sale,
  saleFacts,
  voidSale
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { PaymentsRepo } from "../Payments/PaymentsRepo.js"
import { FastSql } from "../Sql/Fast.js"
import { findRow } from "../Sql/Lists.js"
import { Outbox, type Owner } from "../Webhooks/Outbox.js"
import { type SaleRow, toSale } from "./SalesRepo.js"

/** Why a books line was written: the sale itself, a refund of part of it, or its void. */
export type BooksCause = "sale" | "refund" | "void"

/** Books lines of one sale, for one cause: the payment that caused them (none for a void). */
export interface BooksLines {
  readonly sale: { readonly id: string; readonly currency: string }
  readonly paymentId: string | null
  readonly cause: BooksCause
  readonly entries: ReadonlyArray<BookEntry>
}

/** The payment a sale carries (its refunds name it), as the refund needs it. */
interface SalePayment {
  readonly id: string
  readonly method: PaymentMethod
}

const makeSales = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const payments = yield* PaymentsRepo
  const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

  /** Writes books lines of sales (one statement for them all), in the caller's transaction. */
  const writeBooks = (owner: Owner, lines: ReadonlyArray<BooksLines>, at: Date) => {
    const rows = lines.flatMap(({ sale, paymentId, cause, entries }) =>
      entries.map((entry) => ({ sale_id: sale.id, payment_id: paymentId, cause, currency: sale.currency, ...entry }))
    )
    return rows.length === 0 ? Effect.void : Effect.asVoid(fast.rows(
      `INSERT INTO books_entries (id, organization_id, sale_id, payment_id, cause, account, side, amount_minor, currency, created_at)
       SELECT gen_random_uuid(), $1, e.sale_id, e.payment_id, e.cause, e.account, e.side, e.amount, e.currency, $2
       FROM jsonb_to_recordset($3::jsonb) AS e(sale_id uuid, payment_id uuid, cause text, account text, side text, amount bigint, currency text)`,
      [owner.organizationId, at, JSON.stringify(rows)]
    ))
  }

  /** The sale's row, locked until the transaction ends, or 404. */
  const lockSale = (owner: Owner, id: string) =>
    Effect.flatMap(
      Effect.orDie(findRow<SaleRow>(fast, "sales", owner.organizationId, id, true)),
      (row) => row === undefined ? Effect.fail(notFound("sale")) : Effect.succeed(row)
    )

  /** The facts the domain's rules decide on (`saleFacts`: a sale whose totals are unknown cannot be refunded or voided). */
  const factsOf = (row: SaleRow) =>
    orRefuse(saleFacts({
      currency: row.currency,
      subtotal: row.subtotalMinor,
      taxAmount: row.taxAmountMinor,
      total: row.totalMinor,
      amountRefunded: row.amountRefundedMinor,
      voidedAt: row.voidedAt
    }))

  /** Writes the sale's new state and returns the sale after. */
  const saveSale = (owner: Owner, id: string, columns: string, values: ReadonlyArray<unknown>) =>
    Effect.map(
      fast.rows<SaleRow>(`UPDATE sales SET ${columns} WHERE organization_id = $1 AND id = $2 RETURNING *`, [owner.organizationId, id, ...values]),
      ([row]) => toSale(row)
    )

  /**
   * Refunds `amount` (major units of the sale's currency) of a sale: a refund payment (negative, kind
   * refund, naming the sale's payment, the way that payment came), amountRefunded and the status, the books
   * lines that reverse the refunded part; `sale_partially_refunded` or `sale_refunded`, and `payment_created`.
   */
  const refund = (owner: Owner, id: string, amount: number, reason: string | null) =>
    sql.withTransaction(Effect.gen(function*() {
      const row = yield* lockSale(owner, id)
      const facts = yield* factsOf(row)
      const minor = yield* orRefuse(refundAmountMinor(amount, row.currency))
      const decided = yield* orRefuse(refundSale(facts, minor))
      const [original] = yield* fast.rows<SalePayment>(
        `SELECT id, method FROM payments WHERE organization_id = $1 AND sale_id = $2 AND kind = 'payment' ORDER BY created_at LIMIT 1`,
        [owner.organizationId, id]
      )
      if (original === undefined) return yield* Effect.fail(new Conflict({ message: "The sale has no payment to refund" }))
      const at = yield* now
      const payment = yield* payments.insert(owner, {
        clientId: row.clientId,
        invoiceId: null,
        saleId: id,
        amountMinor: -minor,
        currency: row.currency,
        receivedDate: at.toISOString().slice(0, 10),
        // A refund goes back the way the payment came.
        method: original.method,
        kind: "refund",
        reference: null,
        notes: reason,
        refundOfId: original.id,
        at
      })
      yield* writeBooks(owner, [{ sale: { id, currency: row.currency }, paymentId: payment.id, cause: "refund", entries: decided.entries }], at)
      const sale = yield* saveSale(owner, id, "amount_refunded_minor = $3, status = $4, updated_at = $5", [decided.amountRefunded, decided.status, at])
      yield* outbox.created(owner, "payment", payment)
      yield* outbox.record(owner, decided.status === "refunded" ? "sale_refunded" : "sale_partially_refunded", sale)
      return { sale, payment }
    }))

  /** Voids a sale: status voided, when and why, the books of all that no refund reversed; `sale_voided`. */
  const voidOne = (owner: Owner, id: string, reason: string) =>
    sql.withTransaction(Effect.gen(function*() {
      const row = yield* lockSale(owner, id)
      const facts = yield* factsOf(row)
      const at = yield* now
      const decided = yield* orRefuse(voidSale(facts, reason, at))
      yield* writeBooks(owner, [{ sale: { id, currency: row.currency }, paymentId: null, cause: "void", entries: decided.entries }], at)
      const sale: Sale = yield* saveSale(owner, id, "status = $3, voided_at = $4, void_reason = $5, updated_at = $4", [decided.status, decided.voidedAt, decided.voidReason])
      yield* outbox.record(owner, "sale_voided", sale)
      return { sale }
    }))

  return { writeBooks, refund, void: voidOne } as const
})

/** Sales: their refunds, voids and books lines. */
export class Sales extends Context.Service<Sales, Effect.Success<typeof makeSales>>()("@bizops/server/Sales") {
  static readonly layer = Layer.effect(Sales, makeSales).pipe(Layer.provide(PaymentsRepo.layer))
}
