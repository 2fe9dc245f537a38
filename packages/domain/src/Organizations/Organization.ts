/**
 * An organization's settings (contract: `org update --id ORG [--owner-email E] [--default-tax-rate N]
 * [--currency C]`). The currency, USD until set, is the default of every money record the organization
 * creates (invoices, sale and payout imports); the default tax rate, 0 until set, taxes a client that has
 * no rate of its own; the owner's email is where owner alerts go (null: none are sent).
 */
import { Schema } from "effect"
import { Email, Percent } from "../Common/Values.js"
import { CurrencyCode } from "../Payments/Payment.js"

export class OrganizationSettings extends Schema.Class<OrganizationSettings>("OrganizationSettings")({
  organizationId: Schema.String,
  currency: CurrencyCode,
  defaultTaxRate: Percent,
  ownerEmail: Schema.NullOr(Email)
}) {}

/** What `org update` may change: each setting optional; an empty owner email clears it. */
export const OrganizationSettingsUpdate = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  defaultTaxRate: Schema.optionalKey(Percent),
  ownerEmail: Schema.optionalKey(Schema.NullOr(Email))
})
export type OrganizationSettingsUpdate = typeof OrganizationSettingsUpdate.Type
