import {
  BusinessId,
  Client,
  type ClientCreate,
  ClientId,
  type ClientStatus,
  type ClientUpdate,
  DEFAULT_TAX_SETTINGS,
  checkTaxSettings,
  orRefuse,
  type PageRequest,
  type TaxSettings
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { makeResource } from "../Sql/Resource.js"

interface ClientRow {
  readonly id: string
  readonly businessId: string
  readonly name: string
  readonly status: ClientStatus
  readonly notes: string | null
  readonly taxDefaultTaxable: boolean
  readonly taxOverrideRate: boolean
  readonly taxRate: number | null
  readonly invoiceRemindersEnabled: boolean
  readonly attachInvoicePdf: boolean
  readonly attachReceiptPdf: boolean
  readonly recurringBilling: Client["recurringBilling"]
  readonly sourceSubmissionId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const taxSettingsOf = (row: ClientRow): TaxSettings => ({
  defaultTaxable: row.taxDefaultTaxable,
  overrideTaxRate: row.taxOverrideRate,
  taxRate: row.taxRate
})

const toClient = (row: ClientRow) =>
  new Client({
    id: ClientId.make(row.id, { disableChecks: true }),
    name: row.name,
    status: row.status,
    businessId: BusinessId.make(row.businessId, { disableChecks: true }),
    notes: row.notes,
    taxSettings: taxSettingsOf(row),
    invoiceRemindersEnabled: row.invoiceRemindersEnabled,
    attachInvoicePdf: row.attachInvoicePdf,
    attachReceiptPdf: row.attachReceiptPdf,
    recurringBilling: row.recurringBilling,
    sourceSubmissionId: row.sourceSubmissionId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })

const taxColumns = (settings: TaxSettings) => ({
  taxDefaultTaxable: settings.defaultTaxable,
  taxOverrideRate: settings.overrideTaxRate,
  taxRate: settings.taxRate
})

/** The tax settings after a request, or the domain's refusal as our error. */
const taxSettingsOrFail = (current: TaxSettings, input: ClientCreate["taxSettings"]) => orRefuse(checkTaxSettings(current, input))

const makeClientsRepo = Effect.gen(function*() {
  const clients = yield* makeResource({ table: "clients", resource: "client", what: "client", toResource: toClient })

  const list = (filters: { readonly status?: ClientStatus | undefined; readonly updatedSince?: Date | undefined }, page: PageRequest) =>
    clients.list([["status = ?", filters.status], ["updated_at >= ?", filters.updatedSince]], page)

  const create = (input: ClientCreate) =>
    clients.create((_, principal) =>
      Effect.map(taxSettingsOrFail(DEFAULT_TAX_SETTINGS, input.taxSettings), (taxSettings) => ({
        businessId: input.businessId ?? principal.businessId,
        name: input.name,
        status: input.status ?? "active",
        notes: input.notes ?? null,
        ...taxColumns(taxSettings),
        invoiceRemindersEnabled: input.invoiceRemindersEnabled ?? true,
        attachInvoicePdf: input.attachInvoicePdf ?? true,
        attachReceiptPdf: input.attachReceiptPdf ?? true
      }))
    )

  const update = (id: ClientId, input: ClientUpdate) =>
    clients.update(id, (current) => {
      const { taxSettings: taxInput, ...fields } = input
      return Effect.map(taxSettingsOrFail(taxSettingsOf(current), taxInput), (taxSettings) => ({
        ...fields,
        ...(taxInput === undefined ? {} : taxColumns(taxSettings))
      }))
    })

  return { list, get: clients.get, create, update, remove: clients.remove } as const
})

/** Clients, always scoped by the caller's organization. */
export class ClientsRepo extends Context.Service<ClientsRepo, Effect.Success<typeof makeClientsRepo>>()("@bizops/server/ClientsRepo") {
  static readonly layer = Layer.effect(ClientsRepo, makeClientsRepo)
}
