import {
  checkDeletable,
  checkInvoiceDates,
  ClientId,
  clientView,
  ContactId,
  decideMove,
  decideReissue,
  fractionDigits,
  fromMinorUnits,
  type Invoice,
  type InvoiceCreate,
  type InvoiceId,
  type InvoiceReissue,
  type InvoiceUpdate,
  invoiceDates,
  invoiceTotals,
  notFound,
  orRefuse,
  type PageRequest,
  type Principal,
  ProjectId,
  reissueCopy,
  settle,
  taxRateFor,
  toMinorUnits,
  utcDate
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { DocumentVersionsRepo } from "../DocumentVersions/DocumentVersionsRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { definedOnly } from "../Sql/Lists.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { type InvoiceRow, type StoredLine, toInvoice } from "./InvoiceRows.js"
import { type InvoiceFilters, InvoicesRepo } from "./InvoicesRepo.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const makeInvoices = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* InvoicesRepo
  const outbox = yield* Outbox
  const versions = yield* DocumentVersionsRepo

  const today = Effect.map(now, utcDate)

  const list = (filters: InvoiceFilters, page: PageRequest) => Effect.flatMap(today, (day) => rows.list(filters, page, day))

  const get = (id: InvoiceId) => Effect.flatMap(today, (day) => rows.get(id, day))

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
        const client = yield* rows.clientTax(principal, input.clientId)
        yield* rows.checkLinks(principal, input.clientId, input)
        const currency = client.currency
        const digits = fractionDigits(currency)
        const taxRate = taxRateFor({ overrideTaxRate: client.taxOverrideRate, taxRate: client.taxRate }, client.defaultTaxRate)
        const totals = yield* orRefuse(invoiceTotals(input.lineItems, { taxRate, defaultTaxable: client.taxDefaultTaxable }, digits))
        const dates = invoiceDates(input, at)
        yield* orRefuse(checkInvoiceDates(dates))
        const sentAt = input.status === "sent" ? at : null
        const settlement = settle({ total: totals.total, sentAt, voidedAt: null }, [])
        const id = randomUUID()
        const lines: ReadonlyArray<StoredLine> = input.lineItems.map((line, i) => ({
          id: randomUUID(),
          description: line.description,
          quantity: line.quantity,
          unitPriceMinor: toMinorUnits(line.unitPrice, digits),
          taxable: totals.lines[i].taxable,
          discountPercent: line.discountPercent ?? null,
          totalMinor: totals.lines[i].total
        }))
        yield* rows.insert(principal, {
          id,
          invoiceNumber: yield* rows.nextNumber(principal),
          clientId: input.clientId,
          billingContactId: input.billingContactId ?? null,
          status: settlement.status,
          subject: input.subject ?? null,
          issueDate: dates.issueDate,
          dueDate: dates.dueDate,
          currency,
          taxRate,
          subtotalMinor: totals.subtotal,
          discountMinor: totals.discountAmount,
          taxMinor: totals.taxAmount,
          totalMinor: totals.total,
          paymentTerms: input.paymentTerms ?? null,
          notes: input.notes ?? null,
          lineItems: lines,
          sentAt,
          paidAt: settlement.paidAt,
          supersedesInvoiceId: options?.supersedes ?? null,
          at
        })
        if (input.projectIds !== undefined && input.projectIds.length > 0) yield* rows.setProjects(principal, id, input.projectIds)
        const invoice = toInvoice(yield* rows.written(principal, id), day)
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
      const records = yield* rows.moneyRecords(principal, current.id)
      const settlement = settle({
        total: current.totalMinor,
        sentAt: changes.sentAt ?? current.sentAt,
        voidedAt: changes.voidedAt ?? current.voidedAt
      }, records)
      yield* rows.updateColumns(principal, current.id, {
        ...changes.fields,
        ...(changes.sentAt === undefined ? {} : { sentAt: changes.sentAt }),
        ...(changes.voidedAt === undefined ? {} : { voidedAt: changes.voidedAt }),
        status: settlement.status,
        amountPaidMinor: settlement.amountPaid,
        paidAt: settlement.paidAt,
        updatedAt: at
      })
      if (changes.projectIds !== undefined) yield* rows.setProjects(principal, current.id, changes.projectIds)
      const before = toInvoice(current, day)
      const after = toInvoice(yield* rows.written(principal, current.id), day)
      yield* followVersions(principal, after, at)
      yield* outbox.updated(principal, "invoice", before, after)
      return { before, after }
    })

  /** The invoice's row, locked for the change the caller's transaction makes; 404 when there is none. */
  const locked = (principal: Principal, id: InvoiceId) =>
    Effect.flatMap(rows.findInvoice(principal, id, true), (row) => row === undefined ? Effect.fail(notFound("invoice")) : Effect.succeed(row))

  const update = (principal: Principal, id: InvoiceId, input: InvoiceUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = yield* now
        const current = yield* locked(principal, id)
        const move = yield* orRefuse(decideMove({ status: current.status, amountPaid: current.amountPaidMinor }, input.status))
        const { status: _status, projectIds, ...rest } = input
        const fields = definedOnly(rest)
        if (Object.keys(fields).length === 0 && projectIds === undefined && move === "none") {
          return toInvoice(current, utcDate(at))
        }
        yield* rows.checkLinks(principal, current.clientId, input)
        yield* orRefuse(checkInvoiceDates({ issueDate: input.issueDate ?? current.issueDate, dueDate: input.dueDate ?? current.dueDate }))
        const { after } = yield* rewrite(principal, current, {
          fields,
          projectIds,
          ...(move === "send" ? { sentAt: at } : {}),
          ...(move === "void" ? { voidedAt: at } : {})
        }, at)
        return after
      })
    ).pipe(refuseViolations)

  /** Re-derives an invoice's money and status after a payment was recorded (the invoice row is locked). */
  const settleAfterPayment = (principal: Principal, current: InvoiceRow, at: Date) => rewrite(principal, current, {}, at)

  const remove = (principal: Principal, id: InvoiceId) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* locked(principal, id)
        yield* orRefuse(checkDeletable({ status: current.status, paymentCount: yield* rows.paymentCount(principal, id) }))
        yield* rows.remove(principal, id)
        yield* outbox.deleted(principal, "invoice", toInvoice(current, utcDate(yield* now)))
      })
    ).pipe(refuseViolations)

  const reissue = (principal: Principal, id: InvoiceId, input: InvoiceReissue) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = yield* now
        const original = yield* locked(principal, id)
        const decision = yield* orRefuse(decideReissue({
          status: original.status,
          amountPaid: original.amountPaidMinor,
          replaced: yield* rows.isReplaced(principal, id)
        }))
        if (decision === "void") yield* rewrite(principal, original, { voidedAt: at }, at)
        const digits = fractionDigits(original.currency)
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

  /**
   * For a payment: the invoice's row, locked (FOR UPDATE) until the caller's transaction ends, or
   * undefined when the organization has no such invoice.
   */
  const lockForPayment = (principal: Principal, id: string) => rows.findInvoice(principal, id, true)

  return { list, get, create, update, remove, reissue, lockForPayment, settleAfterPayment } as const
})

/**
 * Invoices, always scoped by the caller's organization: the orchestration over `InvoicesRepo` (SQL).
 * Every change runs in a transaction that holds the invoice's row lock, derives status, amountPaid and
 * paidAt with the domain's rules, issues or voids its document versions and records its events.
 * Payments call this service (never the repository) to lock an invoice and settle it.
 */
export class Invoices extends Context.Service<Invoices, Effect.Success<typeof makeInvoices>>()("@bizops/server/Invoices") {
  static readonly layer = Layer.effect(Invoices, makeInvoices).pipe(Layer.provide(DocumentVersionsRepo.layer))
}
