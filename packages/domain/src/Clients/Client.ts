import { Result, Schema } from "effect"
import { ListParams, ListOf } from "../Common/Pagination.js"
import { Refusal } from "../Common/Refusal.js"
import { BoundedString, BusinessId, DateOnly, DateTime, MaxString, Percent, Uuid } from "../Common/Values.js"

export const ClientId = Uuid.pipe(Schema.brand("ClientId"))
export type ClientId = typeof ClientId.Type

export const ClientStatus = Schema.Literals(["new", "contacted", "qualified", "active", "inactive", "declined", "spam"])
export type ClientStatus = typeof ClientStatus.Type

/** The statuses that make a client a lead (section 1, rule 3). */
export const LEAD_STATUSES: ReadonlyArray<ClientStatus> = ["new", "contacted", "qualified"]

export const ClientName = BoundedString(1, 200)
export const ClientNotes = MaxString(5000)

export const TaxSettings = Schema.Struct({
  defaultTaxable: Schema.Boolean,
  overrideTaxRate: Schema.Boolean,
  taxRate: Schema.NullOr(Percent)
}).annotate({ identifier: "TaxSettings" })
export type TaxSettings = typeof TaxSettings.Type

/** taxSettings in a request body: any subset of the fields, merged over the current settings. */
export const TaxSettingsInput = Schema.Struct({
  defaultTaxable: Schema.optionalKey(Schema.Boolean),
  overrideTaxRate: Schema.optionalKey(Schema.Boolean),
  taxRate: Schema.optionalKey(Schema.NullOr(Percent))
}).annotate({ identifier: "TaxSettingsInput" })
export type TaxSettingsInput = typeof TaxSettingsInput.Type

export const RecurringBilling = Schema.Struct({
  status: Schema.Literals(["active", "past_due", "paused", "suspended", "pending_setup"]),
  nextBillingDate: Schema.NullOr(DateOnly)
}).annotate({ identifier: "RecurringBilling" })

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

/** Where the tax-settings rule refuses, and why (the same words as the create schema's check). */
export const TAX_RATE_PATH = ["taxSettings", "taxRate"] as const
export const TAX_RATE_REQUIRED = "is required when taxSettings.overrideTaxRate is true"

/**
 * The tax settings after a request: the input's fields over the current ones. An override needs a
 * rate: `overrideTaxRate: true` with `taxRate: null` is refused (400 invalid_payload at taxSettings.taxRate).
 */
export const checkTaxSettings = (
  current: TaxSettings,
  input: TaxSettingsInput | undefined
): Result.Result<TaxSettings, Refusal> => {
  const settings: TaxSettings = {
    defaultTaxable: input?.defaultTaxable ?? current.defaultTaxable,
    overrideTaxRate: input?.overrideTaxRate ?? current.overrideTaxRate,
    taxRate: input?.taxRate === undefined ? current.taxRate : input.taxRate
  }
  return settings.overrideTaxRate && settings.taxRate === null
    ? Result.fail(Refusal.invalid(TAX_RATE_PATH, TAX_RATE_REQUIRED))
    : Result.succeed(settings)
}

/**
 * `checkTaxSettings` with its refusal as a sentence ("taxSettings.taxRate is required when ...").
 * @deprecated use `checkTaxSettings` with `orRefuse` / `refusalError` (one mapping for every refusal).
 */
export const mergeTaxSettings = (
  current: TaxSettings,
  input: TaxSettingsInput | undefined
): Result.Result<TaxSettings, string> =>
  Result.mapError(checkTaxSettings(current, input), (refusal) => `${(refusal.path ?? []).join(".")} ${refusal.message}`)

export const ClientCreate = Schema.Struct({
  name: ClientName,
  status: Schema.optionalKey(ClientStatus),
  businessId: Schema.optionalKey(BusinessId),
  notes: Schema.optionalKey(Schema.NullOr(ClientNotes)),
  taxSettings: Schema.optionalKey(TaxSettingsInput),
  invoiceRemindersEnabled: Schema.optionalKey(Schema.Boolean),
  attachInvoicePdf: Schema.optionalKey(Schema.Boolean),
  attachReceiptPdf: Schema.optionalKey(Schema.Boolean)
}).annotate({ examples: [{ name: "Ada Studio", status: "new", notes: "Met at the spring fair" }] }).check(
  Schema.makeFilter((c) =>
    Result.isSuccess(checkTaxSettings(DEFAULT_TAX_SETTINGS, c.taxSettings)) ||
    { path: [...TAX_RATE_PATH], issue: TAX_RATE_REQUIRED }
  )
).annotate({ identifier: "ClientCreate" })
export type ClientCreate = typeof ClientCreate.Type

export const ClientUpdate = Schema.Struct({
  name: Schema.optionalKey(ClientName),
  status: Schema.optionalKey(ClientStatus),
  notes: Schema.optionalKey(Schema.NullOr(ClientNotes)),
  taxSettings: Schema.optionalKey(TaxSettingsInput),
  invoiceRemindersEnabled: Schema.optionalKey(Schema.Boolean),
  attachInvoicePdf: Schema.optionalKey(Schema.Boolean),
  attachReceiptPdf: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "ClientUpdate", examples: [{ status: "active" }] })
export type ClientUpdate = typeof ClientUpdate.Type

export const ClientListParams = Schema.Struct({
  ...ListParams,
  status: Schema.optionalKey(ClientStatus)
})

export const ClientList = ListOf(Client, "ClientList")

