/**
 * The operator imports of records that arrive from outside the API (issue 15; contract "Records that
 * arrive from outside the API", "Sales (read-only)", "Payouts (read-only)"): `npm run admin -- import
 * sales|payouts`. A file is all or nothing: every record is decoded by the domain's import schema and
 * checked by its rules first, and one invalid record imports nothing (`invalid_import` with every issue of
 * every record). Then one transaction upserts each record by its external identity, so that importing the
 * same file twice changes nothing the second time. Each created or changed record emits its events in that
 * transaction, like an API write: sale_created and the sale's payment_created, sale_updated; payout_created,
 * payout_updated, payout_paid and payout_failed, and payment_updated for a payment the payout now settles.
 * A record without a currency takes the organization's (`org update --currency`; USD until set).
 */
import {
  canonicalJson,
  formatSaleNumber,
  fractionDigits,
  importCurrency,
  type Payout,
  PayoutImport,
  payoutImportFields,
  payoutImportRefusals,
  payoutReached,
  reimportSale,
  type Payment,
  type SaleIdentity,
  type SaleMoney,
  type Refusal,
  SaleImport,
  saleEntries,
  saleIdentityOf,
  saleMoney,
  strict,
  toMinorUnits
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Result, Schema, SchemaIssue } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { issuesOf } from "../Http/Envelope.js"
import { type PaymentRow, PaymentsRepo, toPayment } from "../Payments/PaymentsRepo.js"
import { type PayoutRow, toPayout } from "../Payouts/PayoutsRepo.js"
import { Sales } from "../Sales/Sales.js"
import { type SaleRow, toSale } from "../Sales/SalesRepo.js"
import { type FastQuery, FastSql } from "../Sql/Fast.js"
import { organizationCurrency } from "../Sql/Organization.js"
import { takeFromSeries } from "../Sql/Series.js"
import { Outbox, type Owner, type PendingEvent } from "../Webhooks/Outbox.js"
import { previousAttributes } from "@bizops/webhooks"

/** One problem of one record: its index in the file (-1: the file as a whole), where in the record, and what is wrong there. */
export interface ImportIssue {
  readonly index: number
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/** A file that imports nothing: its issues say which records and where. */
export class ImportError extends Error {
  readonly _tag = "ImportError"
  readonly code = "invalid_import"
  constructor(readonly issues: ReadonlyArray<ImportIssue>, message?: string) {
    super(message ?? ImportError.summary(issues))
  }
  static summary(issues: ReadonlyArray<ImportIssue>): string {
    const first = issues[0]
    if (first === undefined) return "The file imports nothing"
    const where = first.path.length > 0 ? `${first.path.join(".")}: ` : ""
    const which = first.index === -1 ? "the file" : `record ${first.index}`
    return `Nothing was imported: ${issues.length} issue(s); ${which}: ${where}${first.message}`
  }
}

export interface ImportResult {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly ids: ReadonlyArray<string>
}

/** Every issue of a record the schema refused, with the record's index. */
const schemaIssues = (index: number, issue: SchemaIssue.Issue): Array<ImportIssue> =>
  issuesOf(issue).map(({ message, path }) => ({ index, path: [...path], message }))

const refusalIssue = (index: number, refusal: Refusal): ImportIssue => ({
  index,
  path: refusal.path ?? [],
  message: refusal.message
})

/** A record decoder: a schema's JSON codec, run with the parse options given (strict). */
export type Decoder<A> = (input: unknown, options: typeof strict) => Result.Result<A, Schema.SchemaError>

/** The records as a file holds them: JSON, so a date-time is a string (the schemas' JSON codecs). */
const decodeSale: Decoder<SaleImport> = Schema.decodeUnknownResult(Schema.toCodecJson(SaleImport))
const decodePayout: Decoder<PayoutImport> = Schema.decodeUnknownResult(Schema.toCodecJson(PayoutImport))

/** Decodes every record of a file (a JSON array), strictly (unknown keys refused); the issues of all of them. */
export const decodeAll = <A>(decode: Decoder<A>, records: unknown) => {
  const issues: Array<ImportIssue> = []
  if (!Array.isArray(records)) {
    issues.push({ index: -1, path: [], message: "the file must be a JSON array of records" })
    return { decoded: [], issues }
  }
  const decoded: Array<A> = []
  records.forEach((record: unknown, index) => {
    const result = decode(record, strict)
    if (Result.isSuccess(result)) decoded.push(result.success)
    else issues.push(...schemaIssues(index, result.failure.issue))
  })
  return { decoded, issues }
}

/** The tables an import's records may name records of. */
export type LinkTable = "clients" | "contacts" | "businesses" | "projects" | "payments"

/** Which of the ids are records of the organization in `table` (one statement). */
export const existingIds = (fast: FastQuery, table: LinkTable, organizationId: string, ids: ReadonlyArray<string>) =>
  ids.length === 0
    ? Effect.succeed(new Set<string>())
    : Effect.map(
      fast.rows<{ readonly id: string }>(`SELECT id FROM ${table} WHERE organization_id = $1 AND id = ANY($2::uuid[])`, [organizationId, ids]),
      (rows) => new Set(rows.map((row) => row.id))
    )

/** A link of an import record: its field, the table of the records it names, and a record's name for the message. */
export interface RecordLink<Field extends string> {
  readonly field: Field
  readonly table: LinkTable
  readonly what: string
}

/**
 * linked_record_not_found for every link of every record that names no record of the organization (null and
 * absent name none); one statement per link for the whole file.
 */
export const linkIssues = <Field extends string>(
  fast: FastQuery,
  organizationId: string,
  records: ReadonlyArray<{ readonly [K in Field]?: string | null | undefined }>,
  links: ReadonlyArray<RecordLink<Field>>
) =>
  Effect.gen(function*() {
    const issues: Array<ImportIssue> = []
    for (const { field, table, what } of links) {
      const found = yield* existingIds(fast, table, organizationId, records.flatMap((record) => record[field] ?? []))
      records.forEach((record, index) => {
        const id = record[field]
        if (id !== undefined && id !== null && !found.has(id)) {
          issues.push({ index, path: [field], message: `linked_record_not_found: no ${what} ${id} in this organization` })
        }
      })
    }
    return issues
  })

const makeImports = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const paymentsRepo = yield* PaymentsRepo
  const sales = yield* Sales
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  const fail = (issues: ReadonlyArray<ImportIssue>) => Effect.fail(new ImportError(issues))

  // ---- Sales -------------------------------------------------------------------------------------

  /** The stored sales of these external ids, locked, each with what an import may not change (`saleIdentityOf`'s shape). */
  const storedSales = (organizationId: string, externalIds: ReadonlyArray<string>) =>
    Effect.map(
      fast.rows<SaleRow & { readonly fixed: unknown }>(
        `SELECT s.*, jsonb_build_object(
           'channel', s.channel, 'saleDate', s.sale_date::text, 'currency', s.currency, 'taxInclusive', s.tax_inclusive,
           'taxRate', s.tax_rate::float8, 'discountPercent', s.discount_percent::float8, 'clientId', s.client_id,
           'contactId', s.contact_id, 'businessId', s.business_id, 'total', s.total_minor::float8,
           'lines', (SELECT jsonb_agg(jsonb_build_array(l.description, l.quantity::float8, l.unit_price_minor::float8) ORDER BY l.position)
                     FROM sale_line_items l WHERE l.organization_id = s.organization_id AND l.sale_id = s.id),
           'method', p.method, 'receivedDate', p.received_date::text) AS fixed
         FROM sales s
         LEFT JOIN payments p ON p.organization_id = s.organization_id AND p.sale_id = s.id AND p.kind = 'payment'
         WHERE s.organization_id = $1 AND s.external_id = ANY($2::text[])
         FOR UPDATE OF s`,
        [organizationId, externalIds]
      ),
      (rows) => new Map(rows.map((row) => [row.externalId ?? "", row]))
    )

  /**
   * Sales, set-based: the stored ones read and locked in one statement, the new ones numbered, inserted with
   * their lines, payments, books lines and events in a few statements for the whole file (5,000 sales: well
   * under the issue's 10 s; one statement per sale took 20 s).
   */
  const importSales = (organizationId: string, records: unknown) =>
    sql.withTransaction(Effect.gen(function*() {
      const owner: Owner = { organizationId }
      const defaultCurrency = yield* organizationCurrency(fast, organizationId)
      const { decoded, issues } = decodeAll(decodeSale, records)
      // The money of each record (a refusal is an issue), in file order.
      const monies = decoded.map((record, index) => {
        const money = saleMoney(record, fractionDigits(importCurrency(record, defaultCurrency)))
        if (Result.isFailure(money)) issues.push(refusalIssue(index, money.failure))
        return money
      })
      // One record per external id: a file that names one twice says two different things about one sale.
      const firstIndex = new Map<string, number>()
      decoded.forEach((record, index) => {
        const seen = firstIndex.get(record.externalId)
        if (seen === undefined) firstIndex.set(record.externalId, index)
        else issues.push({ index, path: ["externalId"], message: `is already the externalId of record ${seen}: a file names each sale once` })
      })
      if (issues.length > 0) return yield* fail(issues)

      issues.push(...yield* linkIssues(fast, organizationId, decoded, [
        { field: "clientId", table: "clients", what: "client" },
        { field: "contactId", table: "contacts", what: "contact" },
        { field: "businessId", table: "businesses", what: "business" }
      ]))
      if (issues.length > 0) return yield* fail(issues)

      // What each record is: new, unchanged, or its notes changed (anything else refused by the domain's rule).
      const stored = yield* storedSales(organizationId, decoded.map((record) => record.externalId))
      const ids: Array<string> = []
      const renoted: Array<{ readonly before: SaleRow; readonly notes: string | null }> = []
      const created: Array<{ readonly id: string; readonly record: SaleImport; readonly money: SaleMoney; readonly currency: string; readonly identity: SaleIdentity }> = []
      let unchanged = 0
      for (const [index, record] of decoded.entries()) {
        const money = monies[index]
        if (money === undefined || Result.isFailure(money)) continue
        const currency = importCurrency(record, defaultCurrency)
        const identity = saleIdentityOf(record, currency, money.success.total)
        const notes = record.notes ?? null
        const before = stored.get(record.externalId)
        if (before === undefined) {
          const id = randomUUID()
          created.push({ id, record, money: money.success, currency, identity })
          ids.push(id)
          continue
        }
        const outcome = reimportSale({ identity: before.fixed, notes: before.notes }, { identity, notes, externalId: record.externalId })
        if (Result.isFailure(outcome)) issues.push(refusalIssue(index, outcome.failure))
        else if (outcome.success === "unchanged") unchanged++
        else renoted.push({ before, notes })
        ids.push(before.id)
      }
      if (issues.length > 0) return yield* fail(issues)

      const at = yield* now
      const events: Array<PendingEvent> = []
      if (created.length > 0) {
        const first = yield* takeFromSeries(fast, "sale_number_series", organizationId, created.length)
        const inserted = yield* fast.rows<SaleRow>(
          `INSERT INTO sales (id, organization_id, sale_number, business_id, client_id, contact_id, channel, external_id, sale_date,
             currency, status, tax_inclusive, subtotal_minor, discount_percent, discount_amount_minor, tax_rate, tax_amount_minor,
             total_minor, amount_refunded_minor, notes, created_at, updated_at)
           SELECT r.id, $1, r.sale_number, r.business_id, r.client_id, r.contact_id, r.channel, r.external_id, r.sale_date,
             r.currency, 'completed', r.tax_inclusive, r.subtotal, r.discount_percent, r.discount_amount, r.tax_rate, r.tax_amount,
             r.total, 0, r.notes, $2, $2
           FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, sale_number text, business_id uuid, client_id uuid,
             contact_id uuid, channel text, external_id text, sale_date date, currency text, tax_inclusive boolean, subtotal bigint,
             discount_percent numeric, discount_amount bigint, tax_rate numeric, tax_amount bigint, total bigint, notes text, n bigint)
           ORDER BY r.n
           RETURNING *`,
          [organizationId, at, JSON.stringify(created.map(({ id, record, money, currency, identity }, i) => ({
            n: i,
            id,
            sale_number: formatSaleNumber(first + i),
            business_id: identity.businessId,
            client_id: identity.clientId,
            contact_id: identity.contactId,
            channel: record.channel,
            external_id: record.externalId,
            sale_date: record.saleDate,
            currency,
            tax_inclusive: record.taxInclusive,
            subtotal: money.subtotal,
            discount_percent: identity.discountPercent,
            discount_amount: money.discountAmount,
            tax_rate: record.taxRate,
            tax_amount: money.taxAmount,
            total: money.total,
            notes: record.notes ?? null
          })))]
        )
        yield* fast.rows(
          `INSERT INTO sale_line_items (id, organization_id, sale_id, position, description, quantity, unit_price_minor, total_minor, created_at)
           SELECT gen_random_uuid(), $1, l.sale_id, l.position, l.description, l.quantity, l.unit_price, l.total, $2
           FROM jsonb_to_recordset($3::jsonb) AS l(sale_id uuid, position int, description text, quantity numeric, unit_price bigint, total bigint)`,
          [organizationId, at, JSON.stringify(created.flatMap(({ id, record, currency }) => {
            const digits = fractionDigits(currency)
            return record.lineItems.map((line, position) => {
              // A line's total: round(quantity × unitPrice), the gross of the line alone.
              const lineMoney = saleMoney({ lineItems: [line], taxRate: 0, taxInclusive: true }, digits)
              return {
                sale_id: id,
                position,
                description: line.description,
                quantity: line.quantity,
                unit_price: toMinorUnits(line.unitPrice, digits),
                total: Result.isSuccess(lineMoney) ? lineMoney.success.gross : 0
              }
            })
          }))]
        )
        // A sale of 0 (all free) moved no money: it has no payment (a payment is never 0) and no books lines.
        const paid = created.filter(({ money }) => money.total !== 0)
        const payments = yield* paymentsRepo.insertMany(owner, paid.map(({ id, record, money, currency, identity }) => ({
          clientId: identity.clientId,
          invoiceId: null,
          saleId: id,
          amountMinor: money.total,
          currency,
          receivedDate: identity.receivedDate ?? record.saleDate,
          method: record.payment.method,
          kind: "payment" as const,
          reference: null,
          notes: null,
          refundOfId: null,
          at
        })))
        const paymentOf = new Map<string, Payment>(payments.flatMap((payment) => payment.saleId === null ? [] : [[payment.saleId, payment]]))
        yield* sales.writeBooks(owner, created.map(({ id, money, currency }) => ({
          sale: { id, currency },
          paymentId: paymentOf.get(id)?.id ?? null,
          cause: "sale" as const,
          entries: saleEntries(money)
        })), at)
        const byId = new Map<string, SaleRow>(inserted.map((row) => [row.id, row]))
        for (const { id } of created) {
          const row = byId.get(id)
          if (row !== undefined) events.push({ type: "sale_created", object: toSale(row) })
          const payment = paymentOf.get(id)
          if (payment !== undefined) events.push({ type: "payment_created", object: payment })
        }
      }
      if (renoted.length > 0) {
        const rows = yield* fast.rows<SaleRow>(
          `UPDATE sales s SET notes = r.notes, updated_at = $2
           FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, notes text)
           WHERE s.organization_id = $1 AND s.id = r.id
           RETURNING s.*`,
          [organizationId, at, JSON.stringify(renoted.map(({ before, notes }) => ({ id: before.id, notes })))]
        )
        const byId = new Map<string, SaleRow>(rows.map((row) => [row.id, row]))
        for (const { before } of renoted) {
          const after = byId.get(before.id)
          if (after !== undefined) {
            const [was, is] = [toSale(before), toSale(after)]
            events.push({ type: "sale_updated", object: is, previousAttributes: previousAttributes(was, is) })
          }
        }
      }
      yield* outbox.recordMany(owner, events)
      return { created: created.length, updated: renoted.length, unchanged, ids } satisfies ImportResult
    }))

  // ---- Payouts -----------------------------------------------------------------------------------

  const storedPayout = (organizationId: string, processorPayoutId: string) =>
    Effect.map(
      fast.rows<PayoutRow & { readonly stored: unknown }>(
        `SELECT *, jsonb_build_object(
           'amount', amount_minor::float8, 'currency', currency, 'arrivalDate', arrival_date::text, 'status', status, 'type', type,
           'automatic', automatic, 'description', description, 'bankAccountLast4', bank_account_last4, 'bankAccountName', bank_account_name,
           'grossTotal', gross_total_minor::float8, 'feeTotal', fee_total_minor::float8, 'refundTotal', refund_total_minor::float8,
           'disputeTotal', dispute_total_minor::float8, 'unattributedTotal', unattributed_total_minor::float8, 'paymentCount', payment_count,
           'lastReconciledAt', (extract(epoch FROM last_reconciled_at) * 1000)::float8, 'failureCode', failure_code,
           'failureMessage', failure_message) AS stored
         FROM payouts WHERE organization_id = $1 AND processor_payout_id = $2 FOR UPDATE`,
        [organizationId, processorPayoutId]
      ),
      (rows) => rows[0]
    )

  const importPayouts = (organizationId: string, records: unknown) =>
    sql.withTransaction(Effect.gen(function*() {
      const owner: Owner = { organizationId }
      const defaultCurrency = yield* organizationCurrency(fast, organizationId)
      const { decoded, issues } = decodeAll(decodePayout, records)
      decoded.forEach((record, index) => {
        for (const refusal of payoutImportRefusals(record, defaultCurrency)) issues.push(refusalIssue(index, refusal))
      })
      if (issues.length > 0) return yield* fail(issues)

      const found = yield* existingIds(fast, "payments", organizationId, decoded.flatMap((record) => record.paymentIds ?? []))
      decoded.forEach((record, index) => {
        for (const [position, id] of (record.paymentIds ?? []).entries()) {
          if (!found.has(id)) issues.push({ index, path: ["paymentIds", position], message: `linked_record_not_found: no payment ${id} in this organization` })
        }
      })
      if (issues.length > 0) return yield* fail(issues)

      let created = 0
      let updated = 0
      let unchanged = 0
      const ids: Array<string> = []
      for (const record of decoded) {
        const fields = payoutImportFields(record, defaultCurrency)
        const digits = fractionDigits(fields.currency)
        const { paymentIds, processorPayoutId: _, lastReconciledAt, ...rest } = fields
        const minor = (value: number | null) => value === null ? null : toMinorUnits(value, digits)
        // The record as the comparison with the stored row reads it: money in minor units, the time in ms.
        const row = {
          ...rest,
          amount: toMinorUnits(fields.amount, digits),
          grossTotal: minor(fields.grossTotal),
          feeTotal: minor(fields.feeTotal),
          refundTotal: minor(fields.refundTotal),
          disputeTotal: minor(fields.disputeTotal),
          unattributedTotal: minor(fields.unattributedTotal),
          lastReconciledAt: lastReconciledAt === null ? null : lastReconciledAt.getTime()
        }
        const values = [
          row.amount, fields.currency, fields.arrivalDate, fields.status, fields.type, fields.automatic, fields.description,
          fields.bankAccountLast4, fields.bankAccountName, row.grossTotal, row.feeTotal, row.refundTotal, row.disputeTotal,
          row.unattributedTotal, fields.paymentCount, lastReconciledAt, fields.failureCode, fields.failureMessage
        ]
        const stored = yield* storedPayout(organizationId, fields.processorPayoutId)
        const at = yield* now
        const id = stored?.id ?? randomUUID()
        let after: Payout | undefined
        if (stored === undefined) {
          const [inserted] = yield* fast.rows<PayoutRow>(
            `INSERT INTO payouts (id, organization_id, processor_payout_id, amount_minor, currency, arrival_date, status, type, automatic,
               description, bank_account_last4, bank_account_name, gross_total_minor, fee_total_minor, refund_total_minor,
               dispute_total_minor, unattributed_total_minor, payment_count, last_reconciled_at, failure_code, failure_message,
               created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22)
             RETURNING *`,
            [id, organizationId, fields.processorPayoutId, ...values, at]
          )
          after = toPayout(inserted)
          yield* outbox.created(owner, "payout", after)
          created++
        } else if (canonicalJson(stored.stored) !== canonicalJson(row)) {
          const [changed] = yield* fast.rows<PayoutRow>(
            `UPDATE payouts SET amount_minor = $3, currency = $4, arrival_date = $5, status = $6, type = $7, automatic = $8,
               description = $9, bank_account_last4 = $10, bank_account_name = $11, gross_total_minor = $12, fee_total_minor = $13,
               refund_total_minor = $14, dispute_total_minor = $15, unattributed_total_minor = $16, payment_count = $17,
               last_reconciled_at = $18, failure_code = $19, failure_message = $20, updated_at = $21
             WHERE organization_id = $1 AND id = $2
             RETURNING *`,
            [organizationId, id, ...values, at]
          )
          after = toPayout(changed)
          yield* outbox.updated(owner, "payout", toPayout(stored), after)
        }
        // Reaching paid or failed is an event of its own (a payout imported as paid reached it too).
        const reached = after === undefined ? undefined : payoutReached(stored?.status, after.status)
        if (after !== undefined && reached !== undefined) yield* outbox.record(owner, reached === "paid" ? "payout_paid" : "payout_failed", after)
        // The payments it settles get its id; a payment already on it is not changed again.
        const linked = paymentIds.length === 0 ? [] : yield* fast.rows<PaymentRow & { readonly previousPayoutId: string | null; readonly previousUpdatedAt: Date }>(
          `UPDATE payments p SET payout_id = $2, updated_at = $4
           FROM (SELECT id, payout_id, updated_at FROM payments
                 WHERE organization_id = $1 AND id = ANY($3::uuid[]) AND payout_id IS DISTINCT FROM $2 FOR UPDATE) o
           WHERE p.organization_id = $1 AND p.id = o.id
           RETURNING p.*, o.payout_id AS previous_payout_id, o.updated_at AS previous_updated_at`,
          [organizationId, id, paymentIds, at]
        )
        for (const payment of linked) {
          const { previousPayoutId, previousUpdatedAt, ...afterRow } = payment
          yield* outbox.updated(owner, "payment", toPayment({ ...afterRow, payoutId: previousPayoutId, updatedAt: previousUpdatedAt }), toPayment(afterRow))
        }
        if (stored !== undefined) {
          if (after !== undefined || linked.length > 0) updated++
          else unchanged++
        }
        ids.push(id)
      }
      return { created, updated, unchanged, ids } satisfies ImportResult
    }))

  return { importSales, importPayouts } as const
})

/** The operator imports (the admin command line's `import`). */
export class Imports extends Context.Service<Imports, Effect.Success<typeof makeImports>>()("@bizops/server/Imports") {
  static readonly layer = Layer.effect(Imports, makeImports).pipe(Layer.provideMerge(Sales.layer), Layer.provideMerge(PaymentsRepo.layer))
}
