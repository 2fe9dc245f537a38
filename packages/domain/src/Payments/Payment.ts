import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { DateOnly, DateTime, generatedWhole, MaxString, Uuid } from "../Common/Values.js"
import { Amount, InvoiceId } from "../Invoices/Invoice.js"

export const PaymentId = Uuid.pipe(Schema.brand("PaymentId"))
export type PaymentId = typeof PaymentId.Type

export const SaleId = Uuid.pipe(Schema.brand("SaleId"))
export type SaleId = typeof SaleId.Type

export const PaymentMethod = Schema.Literals(["processor", "check", "bank_transfer", "cash", "wallet_a", "wallet_b", "wallet_c", "wire", "other"])
export type PaymentMethod = typeof PaymentMethod.Type

/** The methods a client may record: every method but processor (the payment processor records its own). */
export const ManualPaymentMethod = Schema.Literals(["check", "bank_transfer", "cash", "wallet_a", "wallet_b", "wallet_c", "wire", "other"])
  .annotate({ message: "must be one of check, bank_transfer, cash, wallet_a, wallet_b, wallet_c, wire, other (processor payments are recorded by the processor)" })

export const PaymentStatus = Schema.Literals(["pending", "processing", "succeeded", "failed"])
export type PaymentStatus = typeof PaymentStatus.Type

export const PaymentKind = Schema.Literals(["payment", "refund", "chargeback", "dispute_fee", "adjustment"])
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
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Z]{3}$/u, { message: "must be a 3-letter ISO 4217 currency code in capitals, for example USD" })
)

/** A signed amount with at most two decimals, not 0 (the sign says what it is: a refund is negative). */
export const PaymentAmount = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.makeFilter((n: number) => n !== 0, { message: "must not be 0" }),
  Schema.isBetween({ minimum: -9_000_000_000_000, maximum: 9_000_000_000_000 }, { message: "is too large" }),
  Schema.makeFilter((n: number) => Number(n.toFixed(2)) === n, { message: "must have at most 2 decimal places", ...generatedWhole })
)

const Reference = MaxString(200)
const Notes = MaxString(2000)

export const PaymentCreate = Schema.Struct({
  clientId: ClientId,
  amount: PaymentAmount,
  receivedDate: DateOnly,
  method: ManualPaymentMethod,
  invoiceId: Schema.optionalKey(InvoiceId),
  currency: Schema.optionalKey(CurrencyCode),
  kind: Schema.optionalKey(Schema.Literals(["payment", "refund", "adjustment"]).annotate({
    message: "must be payment, refund or adjustment"
  })),
  reference: Schema.optionalKey(Schema.NullOr(Reference)),
  notes: Schema.optionalKey(Schema.NullOr(Notes)),
  refundOfId: Schema.optionalKey(PaymentId)
}).annotate({ identifier: "PaymentCreate", examples: [{ clientId: ClientId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"), invoiceId: InvoiceId.make("7a2d3c8f-4e5b-4f6a-9b0c-1d2e3f4a5b6c"), amount: 1600, receivedDate: "2027-04-20", method: "bank_transfer" }] })
export type PaymentCreate = typeof PaymentCreate.Type

/**
 * The fields of a payment that exist but can no longer change: naming one in a PATCH is 409
 * record_immutable (unknown fields stay 400).
 */
export const IMMUTABLE_PAYMENT_FIELDS = ["clientId", "invoiceId", "amount", "currency", "receivedDate", "method", "kind", "refundOfId"] as const

const Immutable = Schema.optionalKey(Schema.Unknown.annotate({
  description: "Cannot change after creation: naming it is 409 conflict with details.code record_immutable"
}))

export const PaymentUpdate = Schema.Struct({
  reference: Schema.optionalKey(Schema.NullOr(Reference)),
  notes: Schema.optionalKey(Schema.NullOr(Notes)),
  ...Object.fromEntries(IMMUTABLE_PAYMENT_FIELDS.map((field) => [field, Immutable])) as {
    readonly [K in typeof IMMUTABLE_PAYMENT_FIELDS[number]]: typeof Immutable
  }
}).annotate({ identifier: "PaymentUpdate", examples: [{ reference: "Transfer 2027-0420" }] })
export type PaymentUpdate = typeof PaymentUpdate.Type

/** The immutable fields a PATCH body names. */
export const immutableFieldsIn = (update: PaymentUpdate): ReadonlyArray<string> =>
  IMMUTABLE_PAYMENT_FIELDS.filter((field) => update[field] !== undefined)

export const PaymentListParams = Schema.Struct({
  ...ListParams,
  saleId: Schema.optionalKey(SaleId),
  invoiceId: Schema.optionalKey(InvoiceId),
  clientId: Schema.optionalKey(ClientId)
})

export const PaymentList = ListOf(Payment, "PaymentList")
