import {
  checkDeletable,
  ClientId,
  clientView,
  Conflict,
  ContactId,
  decideMove,
  decideReissue,
  DEFAULT_CURRENCY,
  DUE_DATE_MESSAGE,
  formatInvoiceNumber,
  fractionDigits,
  fromMinorUnits,
  Invoice,
  type InvoiceCreate,
  InvoiceId,
  InvoiceLineItem,
  InvoiceLineItemId,
  type InvoiceReissue,
  type InvoiceStatus,
  type InvoiceUpdate,
  invalidPayload,
  invoiceDates,
  invoiceTotals,
  isOverdue,
  linkedRecordNotFound,
  type MoneyRecord,
  notFound,
  type PageRequest,
  type Principal,
  ProjectId,
  type Refusal,
  reissueCopy,
  settle,
  taxRateFor,
  toMinorUnits,
  utcDate
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { DocumentVersionsRepo } from "../DocumentVersions/DocumentVersionsRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { conditions, definedOnly, findRow, listOf } from "../Sql/Lists.js"
import { Outbox } from "../Webhooks/Outbox.js"

/** The organization's default tax rate: 0 until organizations have settings (issue 5). */
export const ORGANIZATION_TAX_RATE = 0

/** A line as stored (jsonb): amounts in minor units, `taxable` as decided when the invoice was made. */
interface StoredLine {
  readonly id: string
  readonly description: string
  readonly quantity: number
  readonly unitPriceMinor: number
  readonly taxable: boolean
  readonly discountPercent: number | null
  readonly totalMinor: number
}

export interface InvoiceRow {
  readonly id: string
  readonly invoiceNumber: string
  readonly clientId: string
  readonly billingContactId: string | null
  readonly status: InvoiceStatus
  readonly subject: string | null
  readonly issueDate: string
  readonly dueDate: string
  readonly currency: string
  readonly subtotalMinor: number
  readonly discountMinor: number
  readonly taxMinor: number
  readonly totalMinor: number
  readonly amountPaidMinor: number
  readonly balanceDueMinor: number
  readonly paymentTerms: string | null
  readonly notes: string | null
  readonly lineItems: ReadonlyArray<StoredLine>
  readonly sentAt: Date | null
  readonly voidedAt: Date | null
  readonly paidAt: Date | null
  readonly supersedesInvoiceId: string | null
  readonly projectIds: ReadonlyArray<string>
  readonly createdAt: Date
  readonly updatedAt: Date
}

const digitsCache = new Map<string, number>()
/** Fraction digits of a currency (Intl is slow to ask; the answer never changes). */
export const digitsOf = (currency: string): number => {
  let digits = digitsCache.get(currency)
  if (digits === undefined) {
    digits = fractionDigits(currency)
    digitsCache.set(currency, digits)
  }
  return digits
}

export const toInvoice = (row: InvoiceRow, today: string): Invoice => {
  const digits = digitsOf(row.currency)
  const money = (minor: number) => fromMinorUnits(minor, digits)
  return new Invoice({
    id: InvoiceId.make(row.id, { disableChecks: true }),
    invoiceNumber: row.invoiceNumber,
    clientId: ClientId.make(row.clientId, { disableChecks: true }),
    billingContactId: row.billingContactId === null ? null : ContactId.make(row.billingContactId, { disableChecks: true }),
    projectIds: row.projectIds.map((id) => ProjectId.make(id, { disableChecks: true })),
    status: row.status,
    subject: row.subject,
    issueDate: row.issueDate,
    dueDate: row.dueDate,
    currency: row.currency,
    subtotal: money(row.subtotalMinor),
    discountAmount: money(row.discountMinor),
    taxAmount: money(row.taxMinor),
    total: money(row.totalMinor),
    amountPaid: money(row.amountPaidMinor),
    balanceDue: money(row.balanceDueMinor),
    overdue: isOverdue({ status: row.status, dueDate: row.dueDate, balanceDue: row.balanceDueMinor }, today),
    supersedesInvoice: row.supersedesInvoiceId === null ? null : InvoiceId.make(row.supersedesInvoiceId, { disableChecks: true }),
    paymentTerms: row.paymentTerms,
    notes: row.notes,
    paidAt: row.paidAt,
    lineItems: row.lineItems.map((line) =>
      new InvoiceLineItem({
        id: InvoiceLineItemId.make(line.id, { disableChecks: true }),
        description: line.description,
        quantity: line.quantity,
        unitPrice: money(line.unitPriceMinor),
        taxable: line.taxable,
        discountPercent: line.discountPercent,
        total: money(line.totalMinor)
      }, { disableChecks: true })
    ),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })
}

/** A refusal of the move table, as the API answers it (400 invalid_payload on status, or 409). */
const refused = (refusal: Refusal) =>
  refusal.kind === "invalid" ? invalidPayload(["status"], refusal.message) : new Conflict({ message: refusal.message })

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const makeInvoicesRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const versions = yield* DocumentVersionsRepo

  const today = Effect.map(now, utcDate)

  const list = (
    principal: Principal,
    filters: {
      readonly clientId?: string | undefined
      readonly status?: InvoiceStatus | undefined
      readonly overdue?: boolean | undefined
      readonly supersedesInvoice?: string | undefined
      readonly updatedSince?: Date | undefined
    },
    page: PageRequest
  ) =>
    Effect.flatMap(today, (day) =>
      listOf(fast, "invoice_rows", conditions(
        ["organization_id = ?", principal.organizationId],
        ["client_id = ?", filters.clientId],
        ["status = ?", filters.status],
        ["supersedes_invoice_id = ?", filters.supersedesInvoice],
        ["updated_at >= ?", filters.updatedSince],
        [
          filters.overdue === true
            ? "(status = 'sent' AND balance_due_minor > 0 AND due_date < ?)"
            : "NOT (status = 'sent' AND balance_due_minor > 0 AND due_date < ?)",
          filters.overdue === undefined ? undefined : day
        ]
      ), page, (row: InvoiceRow) => toInvoice(row, day)))

  /** The invoice's row; locked first (FOR UPDATE) inside a transaction that changes it. */
  const findInvoice = (principal: Principal, id: string, forUpdate = false) =>
    Effect.gen(function*() {
      if (forUpdate) {
        const locked = yield* fast.rows(`SELECT 1 FROM invoices WHERE organization_id = $1 AND id = $2 FOR UPDATE`, [principal.organizationId, id])
        if (locked.length === 0) return undefined
      }
      return yield* findRow<InvoiceRow>(fast, "invoice_rows", principal.organizationId, id)
    })

  /** The row of an invoice this transaction just wrote (it cannot be missing). */
  const written = (principal: Principal, id: string) =>
    Effect.flatMap(findInvoice(principal, id), (row) => row === undefined ? Effect.die(new Error(`invoice ${id} vanished`)) : Effect.succeed(row))

  const get = (principal: Principal, id: InvoiceId) =>
    Effect.gen(function*() {
      const row = yield* Effect.orDie(findInvoice(principal, id))
      if (row === undefined) return yield* Effect.fail(notFound("invoice"))
      return toInvoice(row, yield* today)
    })

  /** The client's tax settings (the client is locked against deletion for the transaction). */
  const clientTax = (principal: Principal, clientId: string) =>
    Effect.flatMap(
      fast.rows<{ readonly taxDefaultTaxable: boolean; readonly taxOverrideRate: boolean; readonly taxRate: number | null }>(
        `SELECT tax_default_taxable, tax_override_rate, tax_rate FROM clients WHERE organization_id = $1 AND id = $2 FOR SHARE`,
        [principal.organizationId, clientId]
      ),
      ([row]) => row === undefined ? Effect.fail(linkedRecordNotFound("clientId", "client")) : Effect.succeed(row)
    )

  /** The billing contact and the projects exist in the organization and belong to the invoice's client. */
  const checkLinks = (
    principal: Principal,
    clientId: string,
    links: { readonly billingContactId?: string | null | undefined; readonly projectIds?: ReadonlyArray<string> | undefined }
  ) =>
    Effect.gen(function*() {
      if (links.billingContactId != null) {
        const [contact] = yield* fast.rows<{ readonly clientId: string | null }>(
          `SELECT client_id FROM contacts WHERE organization_id = $1 AND id = $2 FOR SHARE`,
          [principal.organizationId, links.billingContactId]
        )
        if (contact === undefined) return yield* Effect.fail(linkedRecordNotFound("billingContactId", "contact"))
        if (contact.clientId !== clientId) {
          return yield* Effect.fail(invalidPayload(["billingContactId"], "must be a contact of the invoice's client"))
        }
      }
      const projectIds = links.projectIds ?? []
      if (projectIds.length > 0) {
        const projects = yield* fast.rows<{ readonly id: string; readonly clientId: string | null }>(
          `SELECT id, client_id FROM projects WHERE organization_id = $1 AND id = ANY ($2::uuid[]) FOR SHARE`,
          [principal.organizationId, projectIds]
        )
        if (projects.length !== projectIds.length) return yield* Effect.fail(linkedRecordNotFound("projectIds", "project"))
        const other = projectIds.findIndex((id) => projects.find((p) => p.id === id)?.clientId !== clientId)
        if (other !== -1) return yield* Effect.fail(invalidPayload(["projectIds", other], "must be a project of the invoice's client"))
      }
    })

  const setProjects = (principal: Principal, invoiceId: string, projectIds: ReadonlyArray<string>) =>
    Effect.andThen(
      fast.rows(`DELETE FROM invoice_projects WHERE organization_id = $1 AND invoice_id = $2`, [principal.organizationId, invoiceId]),
      fast.rows(
        `INSERT INTO invoice_projects (organization_id, invoice_id, project_id, position)
         SELECT $1, $2, p, n FROM unnest($3::uuid[]) WITH ORDINALITY AS t (p, n)`,
        [principal.organizationId, invoiceId, projectIds]
      )
    )

  /** The invoice's money records, for the settlement rules. */
  const moneyRecords = (principal: Principal, invoiceId: string) =>
    fast.rows<MoneyRecord>(
      `SELECT id, amount_minor AS amount, status, created_at FROM payments WHERE organization_id = $1 AND invoice_id = $2`,
      [principal.organizationId, invoiceId]
    )

  /** After a change of an invoice: its document versions follow what the client sees. */
  const followVersions = (principal: Principal, invoice: Invoice, at: Date) =>
    invoice.status === "void"
      ? versions.voidIssued(principal, { type: "invoice", id: invoice.id }, at)
      : invoice.status === "draft"
      ? Effect.void
      : versions.issue(principal, { type: "invoice", id: invoice.id, currency: invoice.currency }, clientView(invoice), at)

  const create = (principal: Principal, input: InvoiceCreate, options?: { readonly supersedes?: string }) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = yield* now
        const day = utcDate(at)
        const client = yield* clientTax(principal, input.clientId)
        yield* checkLinks(principal, input.clientId, input)
        const currency = DEFAULT_CURRENCY
        const digits = digitsOf(currency)
        const taxRate = taxRateFor({ overrideTaxRate: client.taxOverrideRate, taxRate: client.taxRate }, ORGANIZATION_TAX_RATE)
        const totals = invoiceTotals(input.lineItems, { taxRate, defaultTaxable: client.taxDefaultTaxable }, digits)
        if (Result.isFailure(totals)) return yield* Effect.fail(invalidPayload(["lineItems"], totals.failure))
        const dates = invoiceDates(input, at)
        if (dates.dueDate < dates.issueDate) {
          return yield* Effect.fail(invalidPayload(["dueDate"], `${DUE_DATE_MESSAGE} (${dates.issueDate})`))
        }
        const sentAt = input.status === "sent" ? at : null
        const settlement = settle({ total: totals.success.total, sentAt, voidedAt: null }, [])
        const [series] = yield* fast.rows<{ readonly lastNumber: number }>(
          `INSERT INTO invoice_number_series (organization_id, last_number) VALUES ($1, 1)
           ON CONFLICT (organization_id) DO UPDATE SET last_number = invoice_number_series.last_number + 1
           RETURNING last_number`,
          [principal.organizationId]
        )
        const id = randomUUID()
        const lines: ReadonlyArray<StoredLine> = input.lineItems.map((line, i) => ({
          id: randomUUID(),
          description: line.description,
          quantity: line.quantity,
          unitPriceMinor: toMinorUnits(line.unitPrice, digits),
          taxable: totals.success.lines[i].taxable,
          discountPercent: line.discountPercent ?? null,
          totalMinor: totals.success.lines[i].total
        }))
        yield* fast.rows(
          `INSERT INTO invoices (id, organization_id, invoice_number, client_id, billing_contact_id, status, subject,
             issue_date, due_date, currency, tax_rate, subtotal_minor, discount_minor, tax_minor, total_minor,
             amount_paid_minor, payment_terms, notes, line_items, sent_at, paid_at, supersedes_invoice_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 0, $16, $17, $18, $19, $20, $21, $22, $22)`,
          [
            id,
            principal.organizationId,
            formatInvoiceNumber(series.lastNumber),
            input.clientId,
            input.billingContactId ?? null,
            settlement.status,
            input.subject ?? null,
            dates.issueDate,
            dates.dueDate,
            currency,
            taxRate,
            totals.success.subtotal,
            totals.success.discountAmount,
            totals.success.taxAmount,
            totals.success.total,
            input.paymentTerms ?? null,
            input.notes ?? null,
            JSON.stringify(lines),
            sentAt,
            settlement.paidAt,
            options?.supersedes ?? null,
            at
          ]
        )
        if (input.projectIds !== undefined && input.projectIds.length > 0) yield* setProjects(principal, id, input.projectIds)
        const invoice = toInvoice(yield* written(principal, id), day)
        yield* followVersions(principal, invoice, at)
        yield* outbox.created(principal, "invoice", invoice)
        return invoice
      })
    ).pipe(refuseViolations)

  /**
   * Writes an invoice's derived state (status, amountPaid, paidAt) and the given field changes, on the
   * locked row, then its versions and its `invoice_updated` event. Returns the invoice before and after.
   */
  const rewrite = (
    principal: Principal,
    current: InvoiceRow,
    changes: {
      readonly fields?: Record<string, unknown>
      readonly projectIds?: ReadonlyArray<string> | undefined
      readonly sentAt?: Date
      readonly voidedAt?: Date
    },
    at: Date
  ) =>
    Effect.gen(function*() {
      const day = utcDate(at)
      const records = yield* moneyRecords(principal, current.id)
      const settlement = settle({
        total: current.totalMinor,
        sentAt: changes.sentAt ?? current.sentAt,
        voidedAt: changes.voidedAt ?? current.voidedAt
      }, records)
      yield* sql`UPDATE invoices SET ${
        sql.update({
          ...changes.fields,
          ...(changes.sentAt === undefined ? {} : { sentAt: changes.sentAt }),
          ...(changes.voidedAt === undefined ? {} : { voidedAt: changes.voidedAt }),
          status: settlement.status,
          amountPaidMinor: settlement.amountPaid,
          paidAt: settlement.paidAt,
          updatedAt: at
        })
      } WHERE organization_id = ${principal.organizationId} AND id = ${current.id}`
      if (changes.projectIds !== undefined) yield* setProjects(principal, current.id, changes.projectIds)
      const before = toInvoice(current, day)
      const after = toInvoice(yield* written(principal, current.id), day)
      yield* followVersions(principal, after, at)
      yield* outbox.updated(principal, "invoice", before, after)
      return { before, after }
    })

  const update = (principal: Principal, id: InvoiceId, input: InvoiceUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = yield* now
        const current = yield* findInvoice(principal, id, true)
        if (current === undefined) return yield* Effect.fail(notFound("invoice"))
        const move = decideMove({ status: current.status, amountPaid: current.amountPaidMinor }, input.status)
        if (Result.isFailure(move)) return yield* Effect.fail(refused(move.failure))
        const { status: _status, projectIds, ...rest } = input
        const fields = definedOnly(rest)
        if (Object.keys(fields).length === 0 && projectIds === undefined && move.success === "none") {
          return toInvoice(current, utcDate(at))
        }
        yield* checkLinks(principal, current.clientId, input)
        const issueDate = input.issueDate ?? current.issueDate
        const dueDate = input.dueDate ?? current.dueDate
        if (dueDate < issueDate) return yield* Effect.fail(invalidPayload(["dueDate"], `${DUE_DATE_MESSAGE} (${issueDate})`))
        const { after } = yield* rewrite(principal, current, {
          fields,
          projectIds,
          ...(move.success === "send" ? { sentAt: at } : {}),
          ...(move.success === "void" ? { voidedAt: at } : {})
        }, at)
        return after
      })
    ).pipe(refuseViolations)

  /** Re-derives an invoice's money and status after a payment was recorded (the invoice row is locked). */
  const settleAfterPayment = (principal: Principal, current: InvoiceRow, at: Date) => rewrite(principal, current, {}, at)

  const remove = (principal: Principal, id: InvoiceId) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* findInvoice(principal, id, true)
        if (current === undefined) return yield* Effect.fail(notFound("invoice"))
        const [payments] = yield* fast.rows<{ readonly n: number }>(
          `SELECT count(*)::int AS n FROM payments WHERE organization_id = $1 AND invoice_id = $2`,
          [principal.organizationId, id]
        )
        const deletable = checkDeletable({ status: current.status, paymentCount: payments.n })
        if (Result.isFailure(deletable)) {
          return yield* Effect.fail(new Conflict({ message: deletable.failure, details: { code: "invoice_not_deletable" } }))
        }
        yield* fast.rows(`DELETE FROM invoices WHERE organization_id = $1 AND id = $2`, [principal.organizationId, id])
        yield* outbox.deleted(principal, "invoice", toInvoice(current, utcDate(yield* now)))
      })
    ).pipe(refuseViolations)

  const reissue = (principal: Principal, id: InvoiceId, input: InvoiceReissue) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = yield* now
        const original = yield* findInvoice(principal, id, true)
        if (original === undefined) return yield* Effect.fail(notFound("invoice"))
        const [replacement] = yield* fast.rows(
          `SELECT 1 FROM invoices WHERE organization_id = $1 AND supersedes_invoice_id = $2`,
          [principal.organizationId, id]
        )
        const decision = decideReissue({
          status: original.status,
          amountPaid: original.amountPaidMinor,
          replaced: replacement !== undefined
        })
        if (Result.isFailure(decision)) return yield* Effect.fail(refused(decision.failure))
        if (decision.success === "void") yield* rewrite(principal, original, { voidedAt: at }, at)
        const digits = digitsOf(original.currency)
        const copy = reissueCopy({
          ...original,
          lineItems: original.lineItems.map((line) => ({
            description: line.description,
            quantity: line.quantity,
            unitPrice: fromMinorUnits(line.unitPriceMinor, digits),
            taxable: line.taxable,
            discountPercent: line.discountPercent
          }))
        }, input, utcDate(at))
        return yield* create(principal, {
          ...copy,
          clientId: ClientId.make(copy.clientId, { disableChecks: true }),
          billingContactId: copy.billingContactId === null ? null : ContactId.make(copy.billingContactId, { disableChecks: true }),
          projectIds: copy.projectIds.map((p) => ProjectId.make(p, { disableChecks: true }))
        }, { supersedes: id })
      })
    ).pipe(refuseViolations)

  return { list, get, create, update, remove, reissue, findInvoice, settleAfterPayment, today } as const
})

/**
 * Invoices, always scoped by the caller's organization. Every change runs in a transaction that holds
 * the invoice's row lock, derives status, amountPaid and paidAt with the domain's rules, issues or voids
 * its document versions and records its events.
 */
export class InvoicesRepo extends Context.Service<InvoicesRepo, Effect.Success<typeof makeInvoicesRepo>>()("@bizops/server/InvoicesRepo") {
  static readonly layer = Layer.effect(InvoicesRepo, makeInvoicesRepo).pipe(Layer.provide(DocumentVersionsRepo.layer))
}
