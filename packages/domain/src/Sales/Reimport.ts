import { Result } from "effect"
import { canonicalJson } from "../Common/Idempotency.js"
import { fractionDigits, toMinorUnits } from "../Common/Money.js"
import { Refusal } from "../Common/Refusal.js"
import type { SaleImport } from "./Sale.js"

/**
 * What of an imported sale is fixed: its payment and books entries were written from it (money in minor
 * units; a sale of 0 has no payment, so no method and no received date).
 */
export interface SaleIdentity {
  readonly channel: string
  readonly saleDate: string
  readonly currency: string
  readonly taxInclusive: boolean
  readonly taxRate: number
  readonly discountPercent: number | null
  readonly clientId: string | null
  readonly contactId: string | null
  readonly businessId: string | null
  readonly total: number
  readonly lines: ReadonlyArray<readonly [description: string, quantity: number, unitPriceMinor: number]>
  readonly method: string | null
  readonly receivedDate: string | null
}

/** The fixed part of an import record, in its currency, with its total (minor units). */
export const saleIdentityOf = (record: SaleImport, currency: string, totalMinor: number): SaleIdentity => ({
  channel: record.channel,
  saleDate: record.saleDate,
  currency,
  taxInclusive: record.taxInclusive,
  taxRate: record.taxRate,
  discountPercent: record.discountPercent ?? null,
  clientId: record.clientId ?? null,
  contactId: record.contactId ?? null,
  businessId: record.businessId ?? null,
  total: totalMinor,
  lines: record.lineItems.map((line) => [line.description, line.quantity, toMinorUnits(line.unitPrice, fractionDigits(currency))] as const),
  method: totalMinor === 0 ? null : record.payment.method,
  receivedDate: totalMinor === 0 ? null : record.payment.receivedDate ?? record.saleDate
})

/**
 * A sale imported again (same `externalId`): `unchanged`, or `notes` when only its notes differ. Anything
 * else is refused: its money, lines, payment, date, channel and links were written into its payment and
 * books entries, so a correction is a refund or a void, then a new sale. `stored` is the identity as read
 * back from the database (compared by content, key order aside).
 */
export const reimportSale = (
  stored: { readonly identity: unknown; readonly notes: string | null },
  next: { readonly identity: SaleIdentity; readonly notes: string | null; readonly externalId: string }
): Result.Result<"unchanged" | "notes", Refusal> =>
  canonicalJson(stored.identity) !== canonicalJson(next.identity)
    ? Result.fail(Refusal.invalid(
      [],
      `sale ${next.externalId} was already imported with other money, lines, payment, date, channel or links: only notes may change (refund or void it instead)`
    ))
    : Result.succeed(stored.notes === next.notes ? "unchanged" : "notes")
