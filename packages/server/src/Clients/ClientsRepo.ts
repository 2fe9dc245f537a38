import {
  checkTaxSettings,
  Client,
  type ClientCreate,
  ClientId,
  type ClientListParams,
  type ClientUpdate,
  DEFAULT_TAX_SETTINGS,
  type Filters,
  orRefuse,
  type PageRequest,
  type TaxSettings
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { RowOf } from "../Sql/Rows.js"

type ClientRow = Omit<RowOf<typeof Client>, "taxSettings"> & {
  readonly taxDefaultTaxable: boolean
  readonly taxOverrideRate: boolean
  readonly taxRate: number | null
}

const taxSettingsOf = (row: ClientRow): TaxSettings => ({
  defaultTaxable: row.taxDefaultTaxable,
  overrideTaxRate: row.taxOverrideRate,
  taxRate: row.taxRate
})

const toClient = (row: ClientRow) => new Client({ ...row, taxSettings: taxSettingsOf(row) }, { disableChecks: true })

const taxColumns = (settings: TaxSettings) => ({
  taxDefaultTaxable: settings.defaultTaxable,
  taxOverrideRate: settings.overrideTaxRate,
  taxRate: settings.taxRate
})

/** The tax settings after a request, or the domain's refusal as our error. */
const taxSettingsOrFail = (current: TaxSettings, input: ClientCreate["taxSettings"]) => orRefuse(checkTaxSettings(current, input))

const makeClientsRepo = Effect.gen(function*() {
  const clients = yield* makeResource({ table: "clients", resource: "client", what: "client", toResource: toClient })

  const list = (filters: Filters<typeof ClientListParams>, page: PageRequest) => clients.list(byFilters(filters), page)

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
