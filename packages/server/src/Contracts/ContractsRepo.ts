import {
  ClientId,
  ContactId,
  Contract,
  type ContractListParams,
  type ContractStatus,
  ContractId,
  type ContentType,
  type Filters,
  formatContractNumber,
  fromMinorUnits,
  invalidPayload,
  linkedRecordNotFound,
  type PageRequest,
  ProjectId,
  type Signer,
  type SigningMode
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { FastSql } from "../Sql/Fast.js"
import { organizationCurrency } from "../Sql/Organization.js"
import { checkBillingContact } from "../Sql/Links.js"
import { nextInSeries } from "../Sql/Series.js"
import { byFilters, findRow } from "../Sql/Lists.js"
import { makeRows } from "../Sql/Resource.js"
import type { Owner } from "../Webhooks/Outbox.js"

/** A signer as the signing flow stores it (jsonb): `signedAt` an ISO 8601 string. */
interface StoredSigner extends Omit<Signer, "signedAt"> {
  readonly signedAt: string | null
}

/** A contract as the `contracts` table holds it: the value in cents, the signers as jsonb. */
export interface ContractRow {
  readonly id: string
  readonly contractNumber: string
  readonly title: string
  readonly clientId: string
  readonly billingContactId: string | null
  readonly projectId: string | null
  readonly sourceTemplateId: string | null
  readonly status: ContractStatus
  readonly signingMode: SigningMode
  readonly contentType: ContentType
  readonly issueDate: string | null
  readonly effectiveDate: string | null
  readonly expirationDate: string | null
  readonly signedDate: Date | null
  readonly currency: string
  readonly contractValueMinor: number | null
  readonly signers: ReadonlyArray<StoredSigner>
  readonly archived: boolean
  readonly archivedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** A new contract's row, as the `Contracts` service computed it (a draft). */
export type NewContractRow = Pick<
  ContractRow,
  | "id"
  | "contractNumber"
  | "title"
  | "clientId"
  | "billingContactId"
  | "projectId"
  | "sourceTemplateId"
  | "issueDate"
  | "effectiveDate"
  | "expirationDate"
  | "currency"
  | "contractValueMinor"
> & { readonly at: Date }

export type ContractFilters = Filters<typeof ContractListParams>

/** Row → resource, without re-validation (the table holds only what was validated on the way in). */
export const toContract = (row: ContractRow): Contract =>
  new Contract({
    ...row,
    id: ContractId.make(row.id, { disableChecks: true }),
    clientId: ClientId.make(row.clientId, { disableChecks: true }),
    billingContactId: row.billingContactId === null ? null : ContactId.make(row.billingContactId, { disableChecks: true }),
    projectId: row.projectId === null ? null : ProjectId.make(row.projectId, { disableChecks: true }),
    contractValue: row.contractValueMinor === null ? null : fromMinorUnits(row.contractValueMinor),
    signers: row.signers.map((signer) => ({
      ...signer,
      contactId: signer.contactId === null ? null : ContactId.make(signer.contactId, { disableChecks: true }),
      signedAt: signer.signedAt === null ? null : new Date(signer.signedAt)
    }))
  }, { disableChecks: true })

const makeContractsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql

  const rows = yield* makeRows<ContractRow>("contracts", "contract")

  /** A page of the organization's contracts that match the filters, newest first. */
  const list = (filters: ContractFilters, page: PageRequest) =>
    Effect.map(rows.page(byFilters(filters), page), ({ pagination, rows }) => ({ data: rows.map(toContract), pagination }))

  /** The organization's contract by id, or 404. */
  const get = (id: ContractId) => Effect.map(rows.one(id), toContract)

  /** The contract's row, locked (FOR UPDATE) until the caller's transaction ends; undefined when the organization has none. */
  const lock = (owner: Owner, id: string) => findRow<ContractRow>(fast, "contracts", owner.organizationId, id, true)

  /**
   * The client, billing contact and project are records of the organization (400 linked_record_not_found),
   * the contact and the project the client's (400 invalid_payload), as an invoice's; each is locked
   * against deletion (FOR SHARE) until the transaction ends.
   */
  const checkLinks = (
    owner: Owner,
    links: { readonly clientId: string; readonly billingContactId?: string | null | undefined; readonly projectId?: string | null | undefined }
  ) =>
    Effect.gen(function*() {
      const client = yield* fast.rows(`SELECT 1 FROM clients WHERE organization_id = $1 AND id = $2 FOR SHARE`, [owner.organizationId, links.clientId])
      if (client.length === 0) return yield* Effect.fail(linkedRecordNotFound("clientId", "client"))
      yield* checkBillingContact(fast, owner.organizationId, links.billingContactId, links.clientId, "contract")
      if (links.projectId != null) {
        const [project] = yield* fast.rows<{ readonly clientId: string | null }>(
          `SELECT client_id FROM projects WHERE organization_id = $1 AND id = $2 FOR SHARE`,
          [owner.organizationId, links.projectId]
        )
        if (project === undefined) return yield* Effect.fail(linkedRecordNotFound("projectId", "project"))
        if (project.clientId !== links.clientId) return yield* Effect.fail(invalidPayload(["projectId"], "must be a project of the contract's client"))
      }
    })

  /** The organization's next contract number, C-0001, ... (`nextInSeries`: without gaps or duplicates). */
  const nextNumber = (owner: Owner) =>
    Effect.map(nextInSeries(fast, "contract_number_series", owner.organizationId), formatContractNumber)

  /** Inserts a draft: no signers, signingMode client_only, contentType richtext, not archived. */
  const insert = (owner: Owner, row: NewContractRow) =>
    Effect.map(
      fast.rows<ContractRow>(
        `INSERT INTO contracts (id, organization_id, contract_number, title, client_id, billing_contact_id, project_id,
           source_template_id, status, signing_mode, content_type, issue_date, effective_date, expiration_date, currency,
           contract_value_minor, signers, archived, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'draft', 'client_only', 'richtext', $9, $10, $11, $12, $13, '[]', false, $14, $14)
         RETURNING *`,
        [
          row.id,
          owner.organizationId,
          row.contractNumber,
          row.title,
          row.clientId,
          row.billingContactId,
          row.projectId,
          row.sourceTemplateId,
          row.issueDate,
          row.effectiveDate,
          row.expirationDate,
          row.currency,
          row.contractValueMinor,
          row.at
        ]
      ),
      ([written]) => written
    )

  /** Writes the named columns of a contract (camelCase names) and returns its row after. */
  const updateColumns = (owner: Owner, id: string, columns: Record<string, unknown>) =>
    Effect.map(
      sql<ContractRow>`UPDATE contracts SET ${sql.update(columns)} WHERE organization_id = ${owner.organizationId} AND id = ${id} RETURNING *`,
      ([written]) => written
    )

  const remove = (owner: Owner, id: string) =>
    Effect.asVoid(fast.rows(`DELETE FROM contracts WHERE organization_id = $1 AND id = $2`, [owner.organizationId, id]))

  return { list, get, lock, organizationCurrency: (owner: Owner) => organizationCurrency(fast, owner.organizationId), checkLinks, nextNumber, insert, updateColumns, remove } as const
})

/**
 * The contracts' SQL, always scoped by the organization: rows in and out, no rules (the `Contracts`
 * service applies the domain's; see Contracts.ts).
 */
export class ContractsRepo extends Context.Service<ContractsRepo, Effect.Success<typeof makeContractsRepo>>()("@bizops/server/ContractsRepo") {
  static readonly layer = Layer.effect(ContractsRepo, makeContractsRepo)
}
