/**
 * An invoice as the database holds it (the `invoice_rows` view: the invoice with its project ids) and
 * as the API answers it. The mapping and the SQL form of the domain's overdue rule live here; the
 * repository only reads and writes rows.
 */
import {
  ClientId,
  ContactId,
  fractionDigits,
  fromMinorUnits,
  Invoice,
  InvoiceId,
  InvoiceLineItem,
  InvoiceLineItemId,
  type InvoiceStatus,
  isOverdue,
  ProjectId
} from "@bizops/domain"

/** A line as stored (jsonb): amounts in minor units, `taxable` as decided when the invoice was made. */
export interface StoredLine {
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

export const toInvoice = (row: InvoiceRow, today: string): Invoice => {
  const digits = fractionDigits(row.currency)
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

/**
 * The domain's `isOverdue` over `invoice_rows`, as a list condition whose `?` is today (UTC): an open sent
 * invoice whose due date is before today with a balance owing (`overdue: false` is its negation).
 * test/overdue.test.ts proves it the same as `isOverdue` over generated invoices in the database.
 */
export const overdueCondition = (overdue: boolean): string =>
  overdue
    ? "(status = 'sent' AND balance_due_minor > 0 AND due_date < ?)"
    : "NOT (status = 'sent' AND balance_due_minor > 0 AND due_date < ?)"
