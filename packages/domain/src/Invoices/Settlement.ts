/**
 * What payments do to an invoice (issue 5, rules 2 and 3): amountPaid, balanceDue, the derived status,
 * paidAt and overdue. Pure functions of the invoice's facts and its money records, in minor units.
 */

export const InvoiceStatuses = ["draft", "sent", "paid", "void", "written_off"] as const
export type InvoiceStatusValue = typeof InvoiceStatuses[number]

/** A money record on an invoice: a payment (positive), a refund (negative) or an adjustment. */
export interface MoneyRecord {
  readonly id: string
  /** Minor units; a refund is negative. */
  readonly amount: number
  readonly status: "pending" | "processing" | "succeeded" | "failed"
  readonly createdAt: Date
}

/** What the invoice itself knows: its total, when it was sent and when it was voided (or null). */
export interface InvoiceFacts {
  readonly total: number
  readonly sentAt: Date | null
  readonly voidedAt: Date | null
}

export interface Settlement {
  readonly amountPaid: number
  readonly balanceDue: number
  readonly status: InvoiceStatusValue
  readonly paidAt: Date | null
}

/** Only succeeded records move money. */
const counts = (record: MoneyRecord): boolean => record.status === "succeeded"

/** amountPaid: Σ of the succeeded payments, refunds and adjustments of the invoice. */
export const amountPaid = (records: ReadonlyArray<MoneyRecord>): number =>
  records.reduce((sum, record) => counts(record) ? sum + record.amount : sum, 0)

/** Records in the order they happened: createdAt, then id (so that the order never depends on the input's). */
const chronological = (records: ReadonlyArray<MoneyRecord>): ReadonlyArray<MoneyRecord> =>
  [...records].sort((a, b) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )

/**
 * The invoice's money and status:
 * - void when voided; draft when never sent;
 * - paid when sent and balanceDue <= 0, with paidAt the createdAt of the record that settled it (the
 *   moment of sending when the total is 0 or less); a refund that reopens a balance makes it sent
 *   again and clears paidAt;
 * - sent otherwise.
 */
export const settle = (invoice: InvoiceFacts, records: ReadonlyArray<MoneyRecord>): Settlement => {
  const paid = amountPaid(records)
  const balanceDue = invoice.total - paid
  if (invoice.voidedAt !== null) return { amountPaid: paid, balanceDue, status: "void", paidAt: null }
  if (invoice.sentAt === null) return { amountPaid: paid, balanceDue, status: "draft", paidAt: null }
  let balance = invoice.total
  let paidAt: Date | null = balance <= 0 ? invoice.sentAt : null
  for (const record of chronological(records)) {
    if (!counts(record)) continue
    const before = balance
    balance -= record.amount
    if (before > 0 && balance <= 0) paidAt = record.createdAt
    if (before <= 0 && balance > 0) paidAt = null
  }
  return balanceDue <= 0
    ? { amountPaid: paid, balanceDue, status: "paid", paidAt }
    : { amountPaid: paid, balanceDue, status: "sent", paidAt: null }
}

/**
 * overdue: an open sent invoice whose due date is before today (UTC) with a balance owing. Never true
 * for a draft, paid, void or written-off invoice.
 */
export const isOverdue = (
  invoice: { readonly status: InvoiceStatusValue; readonly dueDate: string; readonly balanceDue: number },
  today: string
): boolean => invoice.status === "sent" && invoice.dueDate < today && invoice.balanceDue > 0
