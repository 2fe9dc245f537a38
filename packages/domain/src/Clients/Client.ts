import { Either, Schema } from "effect"
import { ListParams, ListOf } from "../Common/Pagination.js"
import { BoundedString, BusinessId, DateOnly, DateTime, MaxString, Percent, strict, Uuid } from "../Common/Values.js"

export const ClientId = Uuid.pipe(Schema.brand("ClientId"))
export type ClientId = typeof ClientId.Type

export const ClientStatus = Schema.Literal("new", "contacted", "qualified", "active", "inactive", "declined", "spam")
export type ClientStatus = typeof ClientStatus.Type

/** The statuses that make a client a lead (section 1, rule 3). */
export const LEAD_STATUSES: ReadonlyArray<ClientStatus> = ["new", "contacted", "qualified"]

export const ClientName = BoundedString(1, 200)
export const ClientNotes = MaxString(5000)

export const TaxSettings = Schema.Struct({
  defaultTaxable: Schema.Boolean,
  overrideTaxRate: Schema.Boolean,
  taxRate: Schema.NullOr(Percent)
}).annotations({ identifier: "TaxSettings" })
export type TaxSettings = typeof TaxSettings.Type

/** taxSettings in a request body: any subset of the fields, merged over the current settings. */
export const TaxSettingsInput = Schema.Struct({
  defaultTaxable: Schema.optional(Schema.Boolean),
  overrideTaxRate: Schema.optional(Schema.Boolean),
  taxRate: Schema.optional(Schema.NullOr(Percent))
}).annotations({ ...strict, identifier: "TaxSettingsInput" })
export type TaxSettingsInput = typeof TaxSettingsInput.Type

export const RecurringBilling = Schema.Struct({
  status: Schema.Literal("active", "past_due", "paused", "suspended", "pending_setup"),
  nextBillingDate: Schema.NullOr(DateOnly)
}).annotations({ identifier: "RecurringBilling" })

export class Client extends Schema.Class<Client>("Client")({
  id: ClientId,
  name: Schema.String,
  status: ClientStatus,
  businessId: BusinessId,
  notes: Schema.NullOr(Schema.String),
  taxSettings: TaxSettings,
  invoiceRemindersEnabled: Schema.Boolean,
  attachInvoicePdf: Schema.Boolean,
  attachReceiptPdf: Schema.Boolean,
  recurringBilling: Schema.NullOr(RecurringBilling),
  sourceSubmissionId: Schema.NullOr(Uuid),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

export const DEFAULT_TAX_SETTINGS: TaxSettings = { defaultTaxable: false, overrideTaxRate: false, taxRate: null }

/**
 * The tax settings after a request: the input's fields over the current ones. An override needs a
 * rate: `overrideTaxRate: true` with `taxRate: null` is refused, with the reason.
 */
export const mergeTaxSettings = (
  current: TaxSettings,
  input: TaxSettingsInput | undefined
): Either.Either<TaxSettings, string> => {
  const settings: TaxSettings = {
    defaultTaxable: input?.defaultTaxable ?? current.defaultTaxable,
    overrideTaxRate: input?.overrideTaxRate ?? current.overrideTaxRate,
    taxRate: input?.taxRate === undefined ? current.taxRate : input.taxRate
  }
  return settings.overrideTaxRate && settings.taxRate === null
    ? Either.left("taxSettings.taxRate is required when taxSettings.overrideTaxRate is true")
    : Either.right(settings)
}

export const ClientCreate = Schema.Struct({
  name: ClientName,
  status: Schema.optional(ClientStatus),
  businessId: Schema.optional(BusinessId),
  notes: Schema.optional(Schema.NullOr(ClientNotes)),
  taxSettings: Schema.optional(TaxSettingsInput),
  invoiceRemindersEnabled: Schema.optional(Schema.Boolean),
  attachInvoicePdf: Schema.optional(Schema.Boolean),
  attachReceiptPdf: Schema.optional(Schema.Boolean)
}).pipe(
  Schema.filter((c) =>
    Either.isRight(mergeTaxSettings(DEFAULT_TAX_SETTINGS, c.taxSettings)) ||
    { path: ["taxSettings", "taxRate"], message: "is required when taxSettings.overrideTaxRate is true" }
  ),
  Schema.annotations({ ...strict, identifier: "ClientCreate" })
)
export type ClientCreate = typeof ClientCreate.Type

export const ClientUpdate = Schema.Struct({
  name: Schema.optional(ClientName),
  status: Schema.optional(ClientStatus),
  notes: Schema.optional(Schema.NullOr(ClientNotes)),
  taxSettings: Schema.optional(TaxSettingsInput),
  invoiceRemindersEnabled: Schema.optional(Schema.Boolean),
  attachInvoicePdf: Schema.optional(Schema.Boolean),
  attachReceiptPdf: Schema.optional(Schema.Boolean)
}).annotations({ ...strict, identifier: "ClientUpdate" })
export type ClientUpdate = typeof ClientUpdate.Type

export const ClientListParams = Schema.Struct({
  ...ListParams,
  status: Schema.optional(ClientStatus)
})

export const ClientList = ListOf(Client, "ClientList")

