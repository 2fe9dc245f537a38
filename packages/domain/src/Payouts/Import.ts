/**
 * The rules of a payout import record between its fields (contract, "Payouts (read-only)"). The schema
 * `PayoutImport` checks each field alone; these check what the fields say together. A file with any
 * refusal imports nothing (`invalid_import`, each refusal an issue at its record's index and path).
 */
import { Option } from "effect"
import { fractionDigits, fromMinorUnits, hasAtMostDigits, toMinorUnits } from "../Common/Money.js"
import { Refusal } from "../Common/Refusal.js"
import type { PayoutImport } from "./Payout.js"
import { identityDiscrepancy } from "./Reconciliation.js"

/** The fields that an unreconciled payout (`lastReconciledAt` null) leaves unknown: each must be null. */
export const UNKNOWN_UNTIL_RECONCILED = ["grossTotal", "feeTotal", "refundTotal", "disputeTotal", "unattributedTotal", "paymentCount"] as const

/** The terms of the identity that must be known for it to be checked (the dispute term is the fourth). */
const IDENTITY_TERMS = ["grossTotal", "feeTotal", "refundTotal"] as const

/** The money fields of a record, whose fraction digits are those of its currency. */
const MONEY_FIELDS = ["amount", "grossTotal", "feeTotal", "refundTotal", "disputeTotal", "unattributedTotal"] as const

/** An import record with its defaults filled in: a field left out is null (unknown, never 0), the currency the organization's. */
export type PayoutImportFields = Required<Omit<PayoutImport, "paymentIds">> & { readonly paymentIds: ReadonlyArray<string> }

/** The record as it is stored: every nullable field present (null when left out), the currency set. */
export const payoutImportFields = (record: PayoutImport, organizationCurrency: string): PayoutImportFields => ({
  processorPayoutId: record.processorPayoutId,
  amount: record.amount,
  currency: record.currency ?? organizationCurrency,
  arrivalDate: record.arrivalDate ?? null,
  status: record.status,
  type: record.type,
  automatic: record.automatic,
  description: record.description ?? null,
  bankAccountLast4: record.bankAccountLast4 ?? null,
  bankAccountName: record.bankAccountName ?? null,
  grossTotal: record.grossTotal ?? null,
  feeTotal: record.feeTotal ?? null,
  refundTotal: record.refundTotal ?? null,
  disputeTotal: record.disputeTotal ?? null,
  unattributedTotal: record.unattributedTotal ?? null,
  paymentCount: record.paymentCount ?? null,
  lastReconciledAt: record.lastReconciledAt ?? null,
  failureCode: record.failureCode ?? null,
  failureMessage: record.failureMessage ?? null,
  paymentIds: record.paymentIds ?? []
})

/**
 * Every refusal of a record (none: it is valid), each `invalid_payload` at the field it is about:
 * - an amount with more fraction digits than its currency has (the identity is checked to the minor unit);
 * - an unreconciled payout with any non-null grossTotal, feeTotal, refundTotal, disputeTotal,
 *   unattributedTotal or paymentCount (its totals are unknown);
 * - a reconciled payout with disputeTotal set whose identity grossTotal − feeTotal − refundTotal −
 *   disputeTotal + (unattributedTotal or 0) is not amount to the minor unit; an unknown term (null) is not
 *   read as 0, so it fails the identity too (refused at that term);
 * - an automatic payout with unattributedTotal not null (0 included: not applicable is null);
 * - a negative refundTotal or disputeTotal (they are positive amounts withdrawn).
 */
export const payoutImportRefusals = (record: PayoutImport, organizationCurrency: string): ReadonlyArray<Refusal> => {
  const fields = payoutImportFields(record, organizationCurrency)
  const refusals: Array<Refusal> = []
  const digits = fractionDigits(fields.currency)

  for (const field of MONEY_FIELDS) {
    const value = fields[field]
    if (value !== null && !hasAtMostDigits(value, digits)) {
      refusals.push(Refusal.invalid([field], digits === 0
        ? `must be a whole number (${fields.currency} has no minor unit)`
        : `must have at most ${digits} decimal places (${fields.currency})`))
    }
  }

  if (fields.lastReconciledAt === null) {
    for (const field of UNKNOWN_UNTIL_RECONCILED) {
      if (fields[field] !== null) {
        refusals.push(Refusal.invalid([field], "must be null while lastReconciledAt is null: the totals of an unreconciled payout are unknown"))
      }
    }
  } else if (fields.disputeTotal !== null) {
    const unknown = IDENTITY_TERMS.filter((field) => fields[field] === null)
    for (const field of unknown) {
      refusals.push(Refusal.invalid([field], "must be set on a reconciled payout with disputeTotal: an unknown term cannot satisfy the identity"))
    }
    const discrepancy = identityDiscrepancy(fields)
    if (unknown.length === 0 && Option.isSome(discrepancy) && discrepancy.value !== 0) {
      const expected = fromMinorUnits(toMinorUnits(fields.amount, digits) + discrepancy.value, digits)
      refusals.push(Refusal.invalid(["amount"], `must equal grossTotal − feeTotal − refundTotal − disputeTotal + unattributedTotal (${expected} ${fields.currency}), off by ${fromMinorUnits(Math.abs(discrepancy.value), digits)}`))
    }
  }

  if (fields.automatic && fields.unattributedTotal !== null) {
    refusals.push(Refusal.invalid(["unattributedTotal"], "must be null on an automatic payout (0 included): unattributed money applies to manual payouts only"))
  }

  for (const field of ["refundTotal", "disputeTotal"] as const) {
    const value = fields[field]
    if (value !== null && value < 0) {
      refusals.push(Refusal.invalid([field], "must be 0 or more: it is the positive amount withdrawn"))
    }
  }

  return refusals
}
