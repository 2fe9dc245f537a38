/**
 * Payouts (issue 15): deposits of the payment processor into the organization's bank account. Read-only
 * over the API; they arrive through the operator import (`import payouts`).
 *
 * The totals of a payout are nullable, and null means unknown (not reconciled, or not recorded), never 0:
 * every schema here keeps them nullable, and nothing in this folder turns a null into a number.
 */
import { Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BooleanParam, BoundedString, DateOnly, DateTime, MaxString, Text, Uuid } from "../Common/Values.js"
import { Amount } from "../Invoices/Invoice.js"
import { CurrencyCode, PaymentId } from "../Payments/Payment.js"

export const PayoutId = Uuid.pipe(Schema.brand("PayoutId"))
export type PayoutId = typeof PayoutId.Type

export const PayoutStatuses = ["pending", "in_transit", "paid", "failed", "canceled"] as const
export const PayoutStatus = Schema.Literals(PayoutStatuses)
export type PayoutStatus = typeof PayoutStatus.Type

/** A count of payments: a whole number, 0 or more (0: the deposit was examined and held nothing). */
export const PayoutPaymentCount = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: "must be 0 or more" }))

/** A total of a payout: null is unknown (never 0), see the reconciliation rules. */
const Total = (description: string) => Schema.NullOr(Amount.annotate({ description }))

export class Payout extends Schema.Class<Payout>("Payout")({
  id: PayoutId,
  processorPayoutId: Schema.String,
  amount: Amount,
  currency: Schema.String,
  arrivalDate: Schema.NullOr(DateOnly),
  status: PayoutStatus,
  type: Schema.String,
  automatic: Schema.Boolean,
  description: Schema.NullOr(Schema.String),
  bankAccountLast4: Schema.NullOr(Schema.String),
  bankAccountName: Schema.NullOr(Schema.String),
  grossTotal: Total("What the payments of the deposit brought in; null: unknown (not reconciled)"),
  feeTotal: Total("The processor's fees; null: unknown (not reconciled)"),
  refundTotal: Total("Refunds withdrawn, a positive amount; null: unknown (not reconciled)"),
  disputeTotal: Total("Dispute withdrawals, a positive amount; null: not recorded (reconciled before disputes were bucketed, or not reconciled)"),
  unattributedTotal: Total("Manual payouts: the part no payment accounts for; null: not recorded (automatic, or synced before the field existed)"),
  paymentCount: Schema.NullOr(PayoutPaymentCount.annotate({ description: "Payments in the deposit; 0: examined and held nothing; null: unknown" })),
  lastReconciledAt: Schema.NullOr(DateTime),
  failureCode: Schema.NullOr(Schema.String),
  failureMessage: Schema.NullOr(Schema.String),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/**
 * An amount of an import: finite and bounded. Its fraction digits depend on the currency (2 for USD, 0 for
 * JPY, 3 for KWD), so the import rules (`payoutImportRefusals`) check them, not the schema.
 */
export const PayoutImportAmount = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.isBetween({ minimum: -9_000_000_000_000, maximum: 9_000_000_000_000 }, { message: "is too large" })
)

const NullableField = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

const PaymentIds = Schema.Array(PaymentId).check(
  Schema.makeFilter((ids: ReadonlyArray<string>) => new Set(ids).size === ids.length, { message: "must not name a payment twice" })
)

/**
 * One record of `import payouts`: every field of the Payout resource except id and timestamps, plus
 * `paymentIds` (the payments of the organization the payout settles; they get its `payoutId`).
 *
 * A nullable field may be left out, and is then null: unknown, never 0. `currency` defaults to the
 * organization's. The rules between fields (an unreconciled payout has no totals, the identity, ...) are
 * `payoutImportRefusals` in `Import.ts`.
 */
export const PayoutImport = Schema.Struct({
  processorPayoutId: BoundedString(1, 200),
  amount: PayoutImportAmount,
  currency: Schema.optionalKey(CurrencyCode),
  arrivalDate: NullableField(DateOnly),
  status: PayoutStatus,
  type: BoundedString(1, 100),
  automatic: Schema.Boolean,
  description: NullableField(MaxString(2000)),
  bankAccountLast4: NullableField(Text.check(Schema.isPattern(/^[0-9]{4}$/u, { message: "must be 4 digits" }))),
  bankAccountName: NullableField(MaxString(200)),
  grossTotal: NullableField(PayoutImportAmount),
  feeTotal: NullableField(PayoutImportAmount),
  refundTotal: NullableField(PayoutImportAmount),
  disputeTotal: NullableField(PayoutImportAmount),
  unattributedTotal: NullableField(PayoutImportAmount),
  paymentCount: NullableField(PayoutPaymentCount),
  lastReconciledAt: NullableField(DateTime),
  failureCode: NullableField(MaxString(200)),
  failureMessage: NullableField(MaxString(2000)),
  paymentIds: Schema.optionalKey(PaymentIds)
}).annotate({ identifier: "PayoutImport" })
export type PayoutImport = typeof PayoutImport.Type

export const PayoutListParams = Schema.Struct({
  ...ListParams,
  status: Schema.optionalKey(PayoutStatus),
  arrivalDateFrom: Schema.optionalKey(DateOnly),
  arrivalDateTo: Schema.optionalKey(DateOnly),
  reconciled: Schema.optionalKey(BooleanParam)
})

export const PayoutList = ListOf(Payout, "PayoutList")
