import {
  BusinessId,
  Client,
  type ClientCreate,
  ClientId,
  type ClientStatus,
  type ClientUpdate,
  DEFAULT_TAX_SETTINGS,
  mergeTaxSettings,
  InvalidRequest,
  notFound,
  type PageRequest,
  type Principal,
  type TaxSettings
} from "@bizops/domain"
import { Context, Effect, Layer, Option, Result } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { conditions, definedOnly, findRow as findOne, getOf, listOf } from "../Sql/Lists.js"

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

const taxSettingsOrFail = (current: TaxSettings, input: ClientCreate["taxSettings"]) =>
  Result.match(mergeTaxSettings(current, input), {
    onFailure: (message) =>
      Effect.fail(
        new InvalidRequest({
          message,
          details: { code: "invalid_payload", issues: [{ path: ["taxSettings", "taxRate"], message }] }
        })
      ),
    onSuccess: Effect.succeed
  })

const makeClientsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox

  const list = (
    principal: Principal,
    filters: { readonly status?: ClientStatus | undefined; readonly updatedSince?: Date | undefined },
    page: PageRequest
  ) =>
    listOf(fast, "clients", conditions(
      ["organization_id = ?", principal.organizationId],
      ["status = ?", filters.status],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toClient)

  const findRow = (principal: Principal, id: string, forUpdate = false) =>
    Effect.map(findOne<ClientRow>(fast, "clients", principal.organizationId, id, forUpdate), Option.fromNullishOr)

  const get = (principal: Principal, id: ClientId) =>
    getOf(fast, "clients", principal.organizationId, id, "client", toClient)

  const create = (principal: Principal, input: ClientCreate) =>
    sql.withTransaction(Effect.gen(function*() {
      const taxSettings = yield* taxSettingsOrFail(DEFAULT_TAX_SETTINGS, input.taxSettings)
      const rows = yield* fast.rows<ClientRow>(
        `INSERT INTO clients (id, organization_id, business_id, name, status, notes, tax_default_taxable,
           tax_override_rate, tax_rate, invoice_reminders_enabled, attach_invoice_pdf, attach_receipt_pdf)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
        [
          randomUUID(),
          principal.organizationId,
          input.businessId ?? principal.businessId,
          input.name,
          input.status ?? "active",
          input.notes ?? null,
          taxSettings.defaultTaxable,
          taxSettings.overrideTaxRate,
          taxSettings.taxRate,
          input.invoiceRemindersEnabled ?? true,
          input.attachInvoicePdf ?? true,
          input.attachReceiptPdf ?? true
        ]
      )
      const created = toClient(rows[0])
      yield* outbox.created(principal, "client", created)
      return created
    })).pipe(refuseViolations)

  const update = (principal: Principal, id: ClientId, input: ClientUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* findRow(principal, id, true)
        if (Option.isNone(current)) return yield* Effect.fail(notFound("client"))
        const { taxSettings: taxInput, ...fields } = input
        const taxSettings = yield* taxSettingsOrFail(taxSettingsOf(current.value), taxInput)
        const values = {
          ...definedOnly(fields),
          ...(taxInput === undefined ? {} : taxColumns(taxSettings))
        }
        if (Object.keys(values).length === 0) return toClient(current.value)
        const rows = yield* sql<ClientRow>`UPDATE clients SET ${sql.update({ ...values, updatedAt: new Date() })}
          WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
        const updated = toClient(rows[0])
        yield* outbox.updated(principal, "client", toClient(current.value), updated)
        return updated
      })
    ).pipe(refuseViolations)

  const remove = (principal: Principal, id: ClientId) =>
    sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql<ClientRow>`DELETE FROM clients
        WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
      if (rows.length === 0) return yield* Effect.fail(notFound("client"))
      yield* outbox.deleted(principal, "client", toClient(rows[0]))
    })).pipe(refuseViolations)

  return { list, get, create, update, remove } as const
})

/** Clients, always scoped by the caller's organization. */
export class ClientsRepo extends Context.Service<ClientsRepo, Effect.Success<typeof makeClientsRepo>>()("@bizops/server/ClientsRepo") {
  static readonly layer = Layer.effect(ClientsRepo, makeClientsRepo)
}
