/**
 * The Sale resource (issue 15; specification "Sale (read-only)"), the record an operator import brings
 * (contract: "Records that arrive from outside the API" and "Sales (read-only)") and the list's query.
 * A sale is never created or changed through the API: it arrives settled, from the point of sale or a
 * revenue connector, and changes only by refund or void.
 */
import { Effect, Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ContactId } from "../Contacts/Contact.js"
import { hasAtMostDigits, fractionDigits } from "../Common/Money.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, BusinessId, DateOnly, DateTime, MaxString, Percent, formatSeriesNumber } from "../Common/Values.js"
import { Amount, DEFAULT_CURRENCY, InvoiceLineItemInput, MAX_LINE_ITEMS } from "../Invoices/Invoice.js"
import { CurrencyCode, PaymentMethod, SaleId } from "../Payments/Payment.js"
import { SaleStatuses } from "./SaleStatus.js"

/** A payment already names its sale, so the id is declared once, with the payments, and re-exported here. */
export { SaleId }

export const SaleChannels = ["pos", "manual", "processor", "storefront", "marketplace", "processor-import", "api"] as const
export const SaleChannel = Schema.Literals(SaleChannels)
export type SaleChannel = typeof SaleChannel.Type

export const SaleStatus = Schema.Literals(SaleStatuses)
export type SaleStatus = typeof SaleStatus.Type

export class Sale extends Schema.Class<Sale>("Sale")({
  id: SaleId,
  saleNumber: Schema.String,
  businessId: Schema.NullOr(BusinessId),
  clientId: Schema.NullOr(ClientId).annotate({ description: "null for a walk-up sale: a valid answer, not missing data" }),
  contactId: Schema.NullOr(ContactId),
  channel: SaleChannel,
  externalId: Schema.NullOr(Schema.String),
  saleDate: DateOnly,
  currency: Schema.String,
  status: SaleStatus,
  voidedAt: Schema.NullOr(DateTime),
  voidReason: Schema.NullOr(Schema.String),
  taxJurisdiction: Schema.NullOr(Schema.String),
  taxInclusive: Schema.Boolean,
  subtotal: Schema.NullOr(Amount).annotate({ description: "Revenue before tax: total − taxAmount" }),
  discountPercent: Schema.NullOr(Schema.Finite),
  discountAmount: Schema.NullOr(Amount),
  taxRate: Schema.NullOr(Schema.Finite),
  taxAmount: Schema.NullOr(Amount),
  total: Schema.NullOr(Amount).annotate({ description: "Tax-inclusive: what the customer paid" }),
  amountRefunded: Amount,
  notes: Schema.NullOr(Schema.String),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** The channels an import may name: every channel but api (a sale is never created through the API). */
export const ImportSaleChannel = Schema.Literals(["pos", "manual", "processor", "storefront", "marketplace", "processor-import"])
  .annotate({ message: "must be one of pos, manual, processor, storefront, marketplace, processor-import (api sales do not arrive by import)" })

/** A line of a sale: what was sold, how many and at what price (the invoice line's value schemas). */
export const SaleLineItemInput = Schema.Struct({
  description: InvoiceLineItemInput.fields.description,
  quantity: InvoiceLineItemInput.fields.quantity,
  unitPrice: InvoiceLineItemInput.fields.unitPrice
}).annotate({ identifier: "SaleLineItemInput" })
export type SaleLineItemInput = typeof SaleLineItemInput.Type

/** The payment a sale carries: its amount is the sale's total; receivedDate defaults to the sale date. */
export const SaleImportPayment = Schema.Struct({
  method: PaymentMethod,
  receivedDate: Schema.optionalKey(DateOnly)
}).annotate({ identifier: "SaleImportPayment" })

const SaleLineItems = Schema.Array(SaleLineItemInput).check(
  Schema.isMinLength(1, { message: "must have at least 1 line item" }),
  Schema.isMaxLength(MAX_LINE_ITEMS, { message: `must have at most ${MAX_LINE_ITEMS} line items` })
)

/** A record's currency: its own, else the organization's (USD until the organization sets one). */
export const importCurrency = (record: { readonly currency?: string | undefined }, organizationCurrency: string = DEFAULT_CURRENCY): string =>
  record.currency ?? organizationCurrency

/**
 * The first line whose unit price has more decimals than the currency has (a JPY price of 12.5 is not
 * money), as the path of the issue; undefined when every price fits.
 */
export const unitPriceBeyondCurrency = (record: {
  readonly currency?: string | undefined
  readonly lineItems: ReadonlyArray<{ readonly unitPrice: number }>
}): number | undefined => {
  const digits = fractionDigits(importCurrency(record))
  const index = record.lineItems.findIndex((line) => !hasAtMostDigits(line.unitPrice, digits))
  return index === -1 ? undefined : index
}

/**
 * One sale as an import file gives it. Upserted by `externalId`. taxInclusive defaults to true and
 * taxRate to 0 when decoded; currency stays absent when not given, so that the importer applies the
 * organization's currency (`importCurrency`). Ids name records of the organization (the importer checks:
 * linked_record_not_found); null and absent both mean none (a walk-up sale has no client).
 */
export const SaleImport = Schema.Struct({
  externalId: BoundedString(1, 255),
  channel: ImportSaleChannel,
  saleDate: DateOnly,
  currency: Schema.optionalKey(CurrencyCode),
  taxInclusive: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true))),
  taxRate: Percent.pipe(Schema.withDecodingDefaultKey(Effect.succeed(0))),
  discountPercent: Schema.optionalKey(Schema.NullOr(Percent)),
  clientId: Schema.optionalKey(Schema.NullOr(ClientId)),
  contactId: Schema.optionalKey(Schema.NullOr(ContactId)),
  businessId: Schema.optionalKey(Schema.NullOr(BusinessId)),
  lineItems: SaleLineItems,
  payment: SaleImportPayment,
  notes: Schema.optionalKey(Schema.NullOr(MaxString(5000)))
}).check(
  Schema.makeFilter((record) => {
    const index = unitPriceBeyondCurrency(record)
    return index === undefined ||
      { path: ["lineItems", index, "unitPrice"], issue: `must have at most ${fractionDigits(importCurrency(record))} decimal places in ${importCurrency(record)}` }
  })
).annotate({
  identifier: "SaleImport",
  examples: [{
    externalId: "pos-2027-000123",
    channel: "pos",
    saleDate: "2027-04-20",
    taxInclusive: true,
    taxRate: 8.875,
    lineItems: [{ description: "Print, 8x10", quantity: 2, unitPrice: 45 }],
    payment: { method: "cash" }
  }]
})
export type SaleImport = typeof SaleImport.Type

/** A file of sales: a JSON array of records. */
export const SaleImportFile = Schema.Array(SaleImport)

export const SaleListParams = Schema.Struct({
  ...ListParams,
  status: Schema.optionalKey(SaleStatus),
  channel: Schema.optionalKey(SaleChannel),
  clientId: Schema.optionalKey(ClientId),
  businessId: Schema.optionalKey(BusinessId),
  saleDateFrom: Schema.optionalKey(DateOnly),
  saleDateTo: Schema.optionalKey(DateOnly)
})

export const SaleList = ListOf(Sale, "SaleList")

/** The number of the n-th sale of an organization's series: S-0001, ..., S-9999, S-10000. */
export const formatSaleNumber = (n: number): string => formatSeriesNumber("S", n)
