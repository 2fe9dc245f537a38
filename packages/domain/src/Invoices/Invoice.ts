import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ContactId } from "../Contacts/Contact.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, DateOnly, DateTime, MaxString, MoneyAmount, Percent, strict, Uuid } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"
import { InvoiceStatuses } from "./Settlement.js"
import { QUANTITY_DIGITS } from "./Totals.js"

export const InvoiceId = Uuid.pipe(Schema.brand("InvoiceId"))
export type InvoiceId = typeof InvoiceId.Type

export const InvoiceLineItemId = Uuid.pipe(Schema.brand("InvoiceLineItemId"))
export type InvoiceLineItemId = typeof InvoiceLineItemId.Type

export const InvoiceStatus = Schema.Literal(...InvoiceStatuses)
export type InvoiceStatus = typeof InvoiceStatus.Type

/** The organization's currency: USD until organizations have settings. */
export const DEFAULT_CURRENCY = "USD"

/** At most this many lines on an invoice, and projects named by one. */
export const MAX_LINE_ITEMS = 500
export const MAX_PROJECT_IDS = 50

/** An amount of money in a response: any sign (a balance can be negative when overpaid), exact to the cent. */
export const Amount = Schema.Finite.annotations({
  description: "An amount in the invoice's currency (major units, exact to its minor unit)",
  arbitrary: () => (fc) => fc.integer({ min: -100_000_000_000, max: 100_000_000_000 }).map((minor) => minor / 100)
})

export class InvoiceLineItem extends Schema.Class<InvoiceLineItem>("InvoiceLineItem")({
  id: InvoiceLineItemId,
  description: Schema.String,
  quantity: Schema.Finite.annotations({ arbitrary: () => (fc) => fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 10_000) }),
  unitPrice: Amount,
  taxable: Schema.Boolean,
  discountPercent: Schema.NullOr(Schema.Finite.annotations({ arbitrary: () => (fc) => fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000) })),
  total: Amount.annotations({ description: "round(quantity × unitPrice) less the line's discount, before tax" })
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
export const Quantity = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.greaterThan(0, { message: () => "must be more than 0" }),
  Schema.lessThanOrEqualTo(1_000_000, { message: () => "must be at most 1000000" }),
  Schema.filter((n) => Number(n.toFixed(QUANTITY_DIGITS)) === n, {
    message: () => `must have at most ${QUANTITY_DIGITS} decimal places`
  })
).annotations({ arbitrary: () => (fc) => fc.integer({ min: 1, max: 10_000_000 }).map((n) => n / 10_000) })

export const InvoiceLineItemInput = Schema.Struct({
  description: BoundedString(1, 500),
  quantity: Quantity,
  unitPrice: MoneyAmount,
  taxable: Schema.optional(Schema.Boolean),
  discountPercent: Schema.optional(Schema.NullOr(Percent))
}).annotations({ ...strict, identifier: "InvoiceLineItemInput" })
export type InvoiceLineItemInput = typeof InvoiceLineItemInput.Type

const LineItems = Schema.Array(InvoiceLineItemInput).pipe(
  Schema.minItems(1, { message: () => "must have at least 1 line item" }),
  Schema.maxItems(MAX_LINE_ITEMS, { message: () => `must have at most ${MAX_LINE_ITEMS} line items` })
)

const ProjectIds = Schema.Array(ProjectId).pipe(
  Schema.maxItems(MAX_PROJECT_IDS, { message: () => `must have at most ${MAX_PROJECT_IDS} projects` }),
  Schema.filter((ids) => new Set(ids).size === ids.length, { message: () => "must not name a project twice" })
)

const Subject = MaxString(500)
const PaymentTerms = MaxString(500)
const Notes = MaxString(5000)

/** A due date is on or after the issue date. */
export const invoiceDatesInOrder = (d: { readonly issueDate?: string | undefined; readonly dueDate?: string | undefined }): boolean =>
  d.issueDate === undefined || d.dueDate === undefined || d.issueDate <= d.dueDate

export const DUE_DATE_MESSAGE = "must be on or after issueDate"

/** The optional fields of an invoice that create, update and reissue bodies all take. */
const optionalFields = {
  billingContactId: Schema.optional(Schema.NullOr(ContactId)),
  projectIds: Schema.optional(ProjectIds),
  subject: Schema.optional(Schema.NullOr(Subject)),
  issueDate: Schema.optional(DateOnly),
  dueDate: Schema.optional(DateOnly),
  paymentTerms: Schema.optional(Schema.NullOr(PaymentTerms)),
  notes: Schema.optional(Schema.NullOr(Notes))
}

/** A body with those fields: dates in order, unknown fields refused. */
const invoiceBody = <Fields extends Schema.Struct.Fields>(fields: Fields, identifier: string) =>
  Schema.Struct(fields).pipe(
    Schema.filter((i: { readonly issueDate?: string | undefined; readonly dueDate?: string | undefined }) =>
      invoiceDatesInOrder(i) || { path: ["dueDate"], message: DUE_DATE_MESSAGE }
    ),
    Schema.annotations({ ...strict, identifier })
  )

export const InvoiceCreate = invoiceBody({
  clientId: ClientId,
  lineItems: LineItems,
  status: Schema.optional(Schema.Literal("draft", "sent").annotations({
    message: () => "must be draft or sent; an invoice becomes paid from its payments"
  })),
  ...optionalFields
}, "InvoiceCreate")
export type InvoiceCreate = typeof InvoiceCreate.Type

export const InvoiceUpdate = invoiceBody({
  status: Schema.optional(Schema.Literal("sent", "void").annotations({
    message: () => "must be sent or void; paid and written_off are set by the system from payments"
  })),
  ...optionalFields
}, "InvoiceUpdate")
export type InvoiceUpdate = typeof InvoiceUpdate.Type

/**
 * The body of `POST /invoices/{id}/reissue`: what the corrected copy changes. Every field is optional;
 * what is not given is copied from the invoice replaced (the client never changes).
 */
export const InvoiceReissue = invoiceBody({ lineItems: Schema.optional(LineItems), ...optionalFields }, "InvoiceReissue")
export type InvoiceReissue = typeof InvoiceReissue.Type

/** `true` or `false` in a query string. */
export const BooleanParam = Schema.Literal("true", "false").pipe(
  Schema.annotations({ message: () => "must be true or false" }),
  Schema.transform(Schema.Boolean, { strict: true, decode: (s) => s === "true", encode: (b) => (b ? "true" : "false") })
)

export const InvoiceListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optional(ClientId),
  status: Schema.optional(InvoiceStatus),
  overdue: Schema.optional(BooleanParam),
  supersedesInvoice: Schema.optional(InvoiceId)
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
export const formatInvoiceNumber = (n: number): string => `INV-${String(n).padStart(4, "0")}`
