import {
  type Filters,
  formatInvoiceNumber,
  type InvoiceListParams,
  invalidPayload,
  linkedRecordNotFound,
  type MoneyRecord,
  type PageRequest,
  type Principal
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { checkBillingContact } from "../Sql/Links.js"
import { FastSql } from "../Sql/Fast.js"
import { findRow } from "../Sql/Lists.js"
import { makeRows } from "../Sql/Resource.js"
import { nextInSeries } from "../Sql/Series.js"
import { type InvoiceRow, overdueCondition, toInvoice } from "./InvoiceRows.js"

/** A new invoice's row, as the `Invoices` service computed it (money in minor units). */
export type NewInvoiceRow =
  & Omit<InvoiceRow, "amountPaidMinor" | "balanceDueMinor" | "voidedAt" | "projectIds" | "createdAt" | "updatedAt">
  & { readonly taxRate: number; readonly at: Date }

export type InvoiceFilters = Filters<typeof InvoiceListParams>

const makeInvoicesRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql

  const rows = yield* makeRows<InvoiceRow>("invoice_rows", "invoice")

  /** A page of the organization's invoices, as they stand on `day` (whether each is overdue). */
  const list = (filters: InvoiceFilters, page: PageRequest, day: string) =>
    Effect.map(rows.page([
      ["client_id = ?", filters.clientId],
      ["status = ?", filters.status],
      ["supersedes_invoice_id = ?", filters.supersedesInvoice],
      ["updated_at >= ?", filters.updatedSince],
      [overdueCondition(filters.overdue === true), filters.overdue === undefined ? undefined : day]
    ], page), ({ pagination, rows }) => ({ data: rows.map((row) => toInvoice(row, day)), pagination }))

  /** The organization's invoice by id as it stands on `day`, or 404. */
  const get = (id: string, day: string) => Effect.map(rows.one(id), (row) => toInvoice(row, day))

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

  /**
   * The client's tax settings with its organization's currency and default tax rate, in one statement (the
   * client is locked against deletion for the transaction).
   */
  const clientTax = (principal: Principal, clientId: string) =>
    Effect.flatMap(
      fast.rows<{
        readonly taxDefaultTaxable: boolean
        readonly taxOverrideRate: boolean
        readonly taxRate: number | null
        readonly currency: string
        readonly defaultTaxRate: number
      }>(
        `SELECT c.tax_default_taxable, c.tax_override_rate, c.tax_rate, o.currency, o.default_tax_rate::float8 AS default_tax_rate
         FROM clients c JOIN organizations o ON o.id = c.organization_id
         WHERE c.organization_id = $1 AND c.id = $2 FOR SHARE OF c`,
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
      yield* checkBillingContact(fast, principal.organizationId, links.billingContactId, clientId, "invoice")
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

  /** The organization's next invoice number (its series is locked until the transaction ends). */
  const nextNumber = (principal: Principal) =>
    Effect.map(nextInSeries(fast, "invoice_number_series", principal.organizationId), formatInvoiceNumber)

  /** Inserts an invoice's row as the service computed it. */
  const insert = (principal: Principal, row: NewInvoiceRow) =>
    fast.rows(
      `INSERT INTO invoices (id, organization_id, invoice_number, client_id, billing_contact_id, status, subject,
         issue_date, due_date, currency, tax_rate, subtotal_minor, discount_minor, tax_minor, total_minor,
         amount_paid_minor, payment_terms, notes, line_items, sent_at, paid_at, supersedes_invoice_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 0, $16, $17, $18, $19, $20, $21, $22, $22)`,
      [
        row.id,
        principal.organizationId,
        row.invoiceNumber,
        row.clientId,
        row.billingContactId,
        row.status,
        row.subject,
        row.issueDate,
        row.dueDate,
        row.currency,
        row.taxRate,
        row.subtotalMinor,
        row.discountMinor,
        row.taxMinor,
        row.totalMinor,
        row.paymentTerms,
        row.notes,
        JSON.stringify(row.lineItems),
        row.sentAt,
        row.paidAt,
        row.supersedesInvoiceId,
        row.at
      ]
    )

  /** Writes the named columns of an invoice (camelCase names). */
  const updateColumns = (principal: Principal, id: string, columns: Record<string, unknown>) =>
    sql`UPDATE invoices SET ${sql.update(columns)} WHERE organization_id = ${principal.organizationId} AND id = ${id}`

  /** How many money records ever touched the invoice. */
  const paymentCount = (principal: Principal, id: string) =>
    Effect.map(
      fast.rows<{ readonly n: number }>(
        `SELECT count(*)::int AS n FROM payments WHERE organization_id = $1 AND invoice_id = $2`,
        [principal.organizationId, id]
      ),
      ([row]) => row.n
    )

  /** Whether another invoice already replaces this one. */
  const isReplaced = (principal: Principal, id: string) =>
    Effect.map(
      fast.rows(`SELECT 1 FROM invoices WHERE organization_id = $1 AND supersedes_invoice_id = $2`, [principal.organizationId, id]),
      (rows) => rows.length > 0
    )

  const remove = (principal: Principal, id: string) =>
    Effect.asVoid(fast.rows(`DELETE FROM invoices WHERE organization_id = $1 AND id = $2`, [principal.organizationId, id]))

  return {
    list,
    get,
    findInvoice,
    written,
    clientTax,
    checkLinks,
    setProjects,
    moneyRecords,
    nextNumber,
    insert,
    updateColumns,
    paymentCount,
    isReplaced,
    remove
  } as const
})

/**
 * The invoices' SQL, always scoped by the caller's organization: rows in and out, no rules and no
 * other resource's repository (the `Invoices` service orchestrates; see Invoices.ts).
 */
export class InvoicesRepo extends Context.Service<InvoicesRepo, Effect.Success<typeof makeInvoicesRepo>>()("@bizops/server/InvoicesRepo") {
  static readonly layer = Layer.effect(InvoicesRepo, makeInvoicesRepo)
}
