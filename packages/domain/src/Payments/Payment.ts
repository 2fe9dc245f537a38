import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { DateOnly, DateTime, MaxString, strict, Uuid } from "../Common/Values.js"
import { Amount, InvoiceId } from "../Invoices/Invoice.js"

export const PaymentId = Uuid.pipe(Schema.brand("PaymentId"))
export type PaymentId = typeof PaymentId.Type

export const SaleId = Uuid.pipe(Schema.brand("SaleId"))
export type SaleId = typeof SaleId.Type

export const PaymentMethod = Schema.Literal("processor", "check", "bank_transfer", "cash", "wallet_a", "wallet_b", "wallet_c", "wire", "other")
export type PaymentMethod = typeof PaymentMethod.Type

/** The methods a client may record: every method but processor (the payment processor records its own). */
export const ManualPaymentMethod = Schema.Literal("check", "bank_transfer", "cash", "wallet_a", "wallet_b", "wallet_c", "wire", "other")
  .annotations({ message: () => "must be one of check, bank_transfer, cash, wallet_a, wallet_b, wallet_c, wire, other (processor payments are recorded by the processor)" })

export const PaymentStatus = Schema.Literal("pending", "processing", "succeeded", "failed")
export type PaymentStatus = typeof PaymentStatus.Type

export const PaymentKind = Schema.Literal("payment", "refund", "chargeback", "dispute_fee", "adjustment")
export type PaymentKind = typeof PaymentKind.Type

export class Payment extends Schema.Class<Payment>("Payment")({
  id: PaymentId,
  clientId: Schema.NullOr(ClientId),
  invoiceId: Schema.NullOr(InvoiceId),
  saleId: Schema.NullOr(SaleId),
  amount: Amount,
  currency: Schema.String,
  receivedDate: DateOnly,
  method: PaymentMethod,
  status: PaymentStatus,
  kind: PaymentKind,
  reference: Schema.NullOr(Schema.String),
  notes: Schema.NullOr(Schema.String),
  netAmount: Schema.NullOr(Amount),
  payoutId: Schema.NullOr(Uuid),
  refundOfId: Schema.NullOr(PaymentId),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** A currency code: three capital letters (ISO 4217). */
export const CurrencyCode = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be a 3-letter ISO 4217 currency code in capitals, for example USD" })
)

/** A signed amount with at most two decimals, not 0 (the sign says what it is: a refund is negative). */
export const PaymentAmount = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.filter((n) => n !== 0, { message: () => "must not be 0" }),
  Schema.between(-9_000_000_000_000, 9_000_000_000_000, { message: () => "is too large" }),
  Schema.filter((n) => Number(n.toFixed(2)) === n, { message: () => "must have at most 2 decimal places" })
).annotations({ arbitrary: () => (fc) => fc.integer({ min: 1, max: 100_000_000 }).map((minor) => minor / 100) })

const Reference = MaxString(200)
const Notes = MaxString(2000)

export const PaymentCreate = Schema.Struct({
  clientId: ClientId,
  amount: PaymentAmount,
  receivedDate: DateOnly,
  method: ManualPaymentMethod,
  invoiceId: Schema.optional(InvoiceId),
  currency: Schema.optional(CurrencyCode),
  kind: Schema.optional(Schema.Literal("payment", "refund", "adjustment").annotations({
    message: () => "must be payment, refund or adjustment"
  })),
  reference: Schema.optional(Schema.NullOr(Reference)),
  notes: Schema.optional(Schema.NullOr(Notes)),
  refundOfId: Schema.optional(PaymentId)
}).annotations({ ...strict, identifier: "PaymentCreate" })
export type PaymentCreate = typeof PaymentCreate.Type

/**
 * The fields of a payment that exist but can no longer change: naming one in a PATCH is 409
 * record_immutable (unknown fields stay 400).
 */
export const IMMUTABLE_PAYMENT_FIELDS = ["clientId", "invoiceId", "amount", "currency", "receivedDate", "method", "kind", "refundOfId"] as const

const Immutable = Schema.optional(Schema.Unknown.annotations({
  description: "Cannot change after creation: naming it is 409 conflict with details.code record_immutable"
}))

export const PaymentUpdate = Schema.Struct({
  reference: Schema.optional(Schema.NullOr(Reference)),
  notes: Schema.optional(Schema.NullOr(Notes)),
  ...Object.fromEntries(IMMUTABLE_PAYMENT_FIELDS.map((field) => [field, Immutable])) as {
    readonly [K in typeof IMMUTABLE_PAYMENT_FIELDS[number]]: typeof Immutable
  }
}).annotations({ ...strict, identifier: "PaymentUpdate" })
export type PaymentUpdate = typeof PaymentUpdate.Type

/** The immutable fields a PATCH body names. */
export const immutableFieldsIn = (update: PaymentUpdate): ReadonlyArray<string> =>
  IMMUTABLE_PAYMENT_FIELDS.filter((field) => update[field] !== undefined)

export const PaymentListParams = Schema.Struct({
  ...ListParams,
  saleId: Schema.optional(SaleId),
  invoiceId: Schema.optional(InvoiceId),
  clientId: Schema.optional(ClientId)
})

export const PaymentList = ListOf(Payment, "PaymentList")
