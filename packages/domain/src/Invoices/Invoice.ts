import { Result, Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ContactId } from "../Contacts/Contact.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { Refusal } from "../Common/Refusal.js"
import { BooleanParam, BoundedString, DateOnly, DateTime, generatedWhole, MaxString, MoneyAmount, Percent, Uuid, formatSeriesNumber } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"
import { InvoiceStatuses } from "./Settlement.js"
import { QUANTITY_DIGITS } from "./Totals.js"

export const InvoiceId = Uuid.pipe(Schema.brand("InvoiceId"))
export type InvoiceId = typeof InvoiceId.Type

export const InvoiceLineItemId = Uuid.pipe(Schema.brand("InvoiceLineItemId"))
export type InvoiceLineItemId = typeof InvoiceLineItemId.Type

export const InvoiceStatus = Schema.Literals(InvoiceStatuses)
export type InvoiceStatus = typeof InvoiceStatus.Type

/** The organization's currency: USD until organizations have settings. */
export const DEFAULT_CURRENCY = "USD"

/** At most this many lines on an invoice, and projects named by one. */
export const MAX_LINE_ITEMS = 500
export const MAX_PROJECT_IDS = 50

/** An amount of money in a response: any sign (a balance can be negative when overpaid), exact to the cent. */
export const Amount = Schema.Finite.annotate({
  description: "An amount in the invoice's currency (major units, exact to its minor unit)"
})

export class InvoiceLineItem extends Schema.Class<InvoiceLineItem>("InvoiceLineItem")({
  id: InvoiceLineItemId,
  description: Schema.String,
  quantity: Schema.Finite,
  unitPrice: Amount,
  taxable: Schema.Boolean,
  discountPercent: Schema.NullOr(Schema.Finite),
  total: Amount.annotate({ description: "round(quantity × unitPrice) less the line's discount, before tax" })
}) {}

export class Invoice extends Schema.Class<Invoice>("Invoice")({
  id: InvoiceId,
  invoiceNumber: Schema.String,
  clientId: ClientId,
  billingContactId: Schema.NullOr(ContactId),
  projectIds: Schema.Array(ProjectId),
  status: InvoiceStatus,
  subject: Schema.NullOr(Schema.String),
  issueDate: DateOnly,
  dueDate: DateOnly,
  currency: Schema.String,
  subtotal: Amount,
  discountAmount: Amount,
  taxAmount: Amount,
  total: Amount,
  amountPaid: Amount,
  balanceDue: Amount,
  overdue: Schema.Boolean,
  supersedesInvoice: Schema.NullOr(InvoiceId),
  paymentTerms: Schema.NullOr(Schema.String),
  notes: Schema.NullOr(Schema.String),
  paidAt: Schema.NullOr(DateTime),
  lineItems: Schema.Array(InvoiceLineItem),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** A quantity: more than 0, at most 1,000,000, at most 4 decimal places. */
export const Quantity = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.isGreaterThan(0, { message: "must be more than 0" }),
  Schema.isLessThanOrEqualTo(1_000_000, { message: "must be at most 1000000" }),
  Schema.makeFilter((n: number) => Number(n.toFixed(QUANTITY_DIGITS)) === n, {
    message: `must have at most ${QUANTITY_DIGITS} decimal places`,
    ...generatedWhole
  })
)

export const InvoiceLineItemInput = Schema.Struct({
  description: BoundedString(1, 500),
  quantity: Quantity,
  unitPrice: MoneyAmount,
  taxable: Schema.optionalKey(Schema.Boolean),
  discountPercent: Schema.optionalKey(Schema.NullOr(Percent))
}).annotate({ identifier: "InvoiceLineItemInput" })
export type InvoiceLineItemInput = typeof InvoiceLineItemInput.Type

const LineItems = Schema.Array(InvoiceLineItemInput).check(
  Schema.isMinLength(1, { message: "must have at least 1 line item" }),
  Schema.isMaxLength(MAX_LINE_ITEMS, { message: `must have at most ${MAX_LINE_ITEMS} line items` })
)

const ProjectIds = Schema.Array(ProjectId).check(
  Schema.isMaxLength(MAX_PROJECT_IDS, { message: `must have at most ${MAX_PROJECT_IDS} projects` }),
  Schema.makeFilter((ids: ReadonlyArray<string>) => new Set(ids).size === ids.length, { message: "must not name a project twice" })
)

const Subject = MaxString(500)
const PaymentTerms = MaxString(500)
const Notes = MaxString(5000)

/** A due date is on or after the issue date. */
export const invoiceDatesInOrder = (d: { readonly issueDate?: string | undefined; readonly dueDate?: string | undefined }): boolean =>
  d.issueDate === undefined || d.dueDate === undefined || d.issueDate <= d.dueDate

export const DUE_DATE_MESSAGE = "must be on or after issueDate"

/**
 * The dates an invoice ends up with (after defaults, or the current ones merged with a change) are in
 * order: else 400 invalid_payload on dueDate, naming the issue date.
 */
export const checkInvoiceDates = (d: { readonly issueDate: string; readonly dueDate: string }): Result.Result<void, Refusal> =>
  invoiceDatesInOrder(d) ? Result.void : Result.fail(Refusal.invalid(["dueDate"], `${DUE_DATE_MESSAGE} (${d.issueDate})`))

/** The optional fields of an invoice that create, update and reissue bodies all take. */
const optionalFields = {
  billingContactId: Schema.optionalKey(Schema.NullOr(ContactId)),
  projectIds: Schema.optionalKey(ProjectIds),
  subject: Schema.optionalKey(Schema.NullOr(Subject)),
  issueDate: Schema.optionalKey(DateOnly),
  dueDate: Schema.optionalKey(DateOnly),
  paymentTerms: Schema.optionalKey(Schema.NullOr(PaymentTerms)),
  notes: Schema.optionalKey(Schema.NullOr(Notes))
}

/** The check of every invoice body: dates in order. */
const datesInOrder = Schema.makeFilter((i: { readonly issueDate?: string; readonly dueDate?: string }) =>
  invoiceDatesInOrder(i) || { path: ["dueDate"], issue: DUE_DATE_MESSAGE }
)

export const InvoiceCreate = Schema.Struct({
  clientId: ClientId,
  lineItems: LineItems,
  status: Schema.optionalKey(Schema.Literals(["draft", "sent"]).annotate({
    message: "must be draft or sent; an invoice becomes paid from its payments"
  })),
  ...optionalFields
}).annotate({ examples: [{ clientId: ClientId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"), lineItems: [{ description: "Wedding coverage, 8 hours", quantity: 1, unitPrice: 3200 }], dueDate: "2027-05-01" }] }).check(datesInOrder).annotate({ identifier: "InvoiceCreate" })
export type InvoiceCreate = typeof InvoiceCreate.Type

export const InvoiceUpdate = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["sent", "void"]).annotate({
    message: "must be sent or void; paid and written_off are set by the system from payments"
  })),
  ...optionalFields
}).annotate({ examples: [{ status: "sent" }] }).check(datesInOrder).annotate({ identifier: "InvoiceUpdate" })
export type InvoiceUpdate = typeof InvoiceUpdate.Type

/**
 * The body of `POST /invoices/{id}/reissue`: what the corrected copy changes. Every field is optional;
 * what is not given is copied from the invoice replaced (the client never changes).
 */
export const InvoiceReissue = Schema.Struct({ lineItems: Schema.optionalKey(LineItems), ...optionalFields })
  .annotate({ examples: [{ dueDate: "2027-05-15", notes: "Corrected due date" }] })
  .check(datesInOrder)
  .annotate({ identifier: "InvoiceReissue" })
export type InvoiceReissue = typeof InvoiceReissue.Type

export const InvoiceListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optionalKey(ClientId),
  status: Schema.optionalKey(InvoiceStatus),
  overdue: Schema.optionalKey(BooleanParam),
  supersedesInvoice: Schema.optionalKey(InvoiceId)
})

export const InvoiceList = ListOf(Invoice, "InvoiceList")

/**
 * What the client sees of an invoice: the content of a document version, hashed into its contentHash
 * (SHA-256 of the canonical JSON of this). Status, payments and timestamps are not content.
 */
export const clientView = (invoice: Invoice) => ({
  invoiceNumber: invoice.invoiceNumber,
  clientId: invoice.clientId,
  billingContactId: invoice.billingContactId,
  subject: invoice.subject,
  issueDate: invoice.issueDate,
  dueDate: invoice.dueDate,
  currency: invoice.currency,
  paymentTerms: invoice.paymentTerms,
  notes: invoice.notes,
  lineItems: invoice.lineItems.map((line) => ({
    description: line.description,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    taxable: line.taxable,
    discountPercent: line.discountPercent,
    total: line.total
  })),
  subtotal: invoice.subtotal,
  discountAmount: invoice.discountAmount,
  taxAmount: invoice.taxAmount,
  total: invoice.total
})


/** The number of the n-th invoice of an organization's series: INV-0001, ..., INV-9999, INV-10000. */
export const formatInvoiceNumber = (n: number): string => formatSeriesNumber("INV", n)
