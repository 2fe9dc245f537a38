/**
 * The operator import of client documents (smart-files; issue 16, contract "Records that arrive from outside
 * the API" and "Contracts, client documents, milestones"): `npm run admin -- import client-documents`. As the
 * other imports: all or nothing (every record decoded by the domain's `ClientDocumentImport` and its links
 * checked before anything is written; one bad record imports nothing), one transaction, an upsert by
 * `externalId`, so the same file twice changes nothing the second time.
 *
 * Templates are stored but are no part of the API, so they have no events: client_document_created when a
 * document appears to the API (new, or a template turned into a document), client_document_updated when a
 * document the API sees changes. A document that becomes sent issues a document version (`smart-file`, in
 * the organization's currency) whose content is what the client sees (`clientDocumentContent`).
 */
import {
  canonicalJson,
  clientDocumentContent,
  clientDocumentIssuesVersion,
  ClientDocumentImport,
  isVisibleClientDocument
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { type ClientDocumentRow, toClientDocument } from "../ClientDocuments/ClientDocumentsRepo.js"
import { DocumentVersionsRepo } from "../DocumentVersions/DocumentVersionsRepo.js"
import { FastSql } from "../Sql/Fast.js"
import { organizationCurrency } from "../Sql/Organization.js"
import { Outbox, type Owner } from "../Webhooks/Outbox.js"
import { decodeAll, type Decoder, ImportError, type ImportIssue, type ImportResult } from "./Imports.js"

/** A file's record as JSON holds it (date-times as strings). */
const decodeClientDocument: Decoder<ClientDocumentImport> = Schema.decodeUnknownResult(Schema.toCodecJson(ClientDocumentImport))

/** A stored document, templates included (the table, not the API's view). */
type StoredRow = ClientDocumentRow & { readonly externalId: string }

/** The fields an import writes, in the comparison's form: times in ms, so that equal values compare equal. */
const comparable = (doc: Omit<ClientDocumentImport, "externalId">) => ({
  title: doc.title ?? null,
  status: doc.status,
  contactId: doc.contactId ?? null,
  clientId: doc.clientId ?? null,
  projectId: doc.projectId ?? null,
  engagementProjectId: doc.engagementProjectId ?? null,
  isTemplate: doc.isTemplate,
  clientUrl: doc.clientUrl ?? null,
  quoteConvertedAt: doc.quoteConvertedAt?.getTime() ?? null,
  expiresAt: doc.expiresAt?.getTime() ?? null,
  archivedAt: doc.archivedAt?.getTime() ?? null
})

/** The links of a record, each checked against the organization's records of its table. */
const LINKS = [
  ["contactId", "contacts", "contact"],
  ["clientId", "clients", "client"],
  ["projectId", "projects", "project"],
  ["engagementProjectId", "projects", "project"]
] as const

const makeClientDocumentImports = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const versions = yield* DocumentVersionsRepo
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  /** Which of the ids are records of the organization in `table`. */
  const existing = (table: "clients" | "contacts" | "projects", organizationId: string, ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.succeed(new Set<string>())
      : Effect.map(
        fast.rows<{ readonly id: string }>(`SELECT id FROM ${table} WHERE organization_id = $1 AND id = ANY($2::uuid[])`, [organizationId, ids]),
        (rows) => new Set(rows.map((row) => row.id))
      )

  const stored = (organizationId: string, externalId: string) =>
    Effect.map(
      sql<StoredRow>`SELECT * FROM client_documents WHERE organization_id = ${organizationId} AND external_id = ${externalId} FOR UPDATE`,
      (rows) => rows[0]
    )

  /**
   * Issues the version of a document that became sent, then gives the version just issued the document's
   * expiry, conversion and engagement project (a version already issued with the same content is kept as is).
   */
  const issueVersion = (owner: Owner, row: StoredRow, currency: string, at: Date) =>
    Effect.gen(function*() {
      yield* versions.issue(owner, { type: "smart-file", id: row.id, currency }, clientDocumentContent(row), at)
      yield* fast.rows(
        `UPDATE document_versions SET quote_converted_at = $4, expires_at = $5, engagement_project_id = $6
         WHERE organization_id = $1 AND document_type = 'smart-file' AND document_id = $2 AND version_status = 'issued' AND issued_at = $3`,
        [owner.organizationId, row.id, at, row.quoteConvertedAt, row.expiresAt, row.engagementProjectId]
      )
    })

  const importClientDocuments = (organizationId: string, records: unknown) =>
    sql.withTransaction(Effect.gen(function*() {
      const owner: Owner = { organizationId }
      const { decoded, issues } = decodeAll(decodeClientDocument, records)
      if (issues.length > 0) return yield* Effect.fail(new ImportError(issues))

      for (const [field, table, what] of LINKS) {
        const found = yield* existing(table, organizationId, decoded.flatMap((record) => record[field] ?? []))
        decoded.forEach((record, index) => {
          const id = record[field]
          if (id !== undefined && id !== null && !found.has(id)) {
            issues.push({ index, path: [field], message: `linked_record_not_found: no ${what} ${id} in this organization` } satisfies ImportIssue)
          }
        })
      }
      if (issues.length > 0) return yield* Effect.fail(new ImportError(issues))

      const currency = yield* organizationCurrency(fast, organizationId)
      let created = 0
      let updated = 0
      let unchanged = 0
      const ids: Array<string> = []
      for (const record of decoded) {
        const { externalId, ...fields } = record
        const values = {
          title: fields.title ?? null,
          status: fields.status,
          contactId: fields.contactId ?? null,
          clientId: fields.clientId ?? null,
          projectId: fields.projectId ?? null,
          engagementProjectId: fields.engagementProjectId ?? null,
          isTemplate: fields.isTemplate,
          clientUrl: fields.clientUrl ?? null,
          quoteConvertedAt: fields.quoteConvertedAt ?? null,
          expiresAt: fields.expiresAt ?? null,
          archivedAt: fields.archivedAt ?? null
        }
        const before = yield* stored(organizationId, externalId)
        const at = yield* now
        let after: StoredRow
        if (before === undefined) {
          const rows = yield* sql<StoredRow>`INSERT INTO client_documents ${
            sql.insert({ ...values, id: randomUUID(), organizationId, externalId, createdAt: at, updatedAt: at })
          } RETURNING *`
          after = rows[0]
          created++
        } else if (canonicalJson(comparable(before)) === canonicalJson(comparable(values))) {
          ids.push(before.id)
          unchanged++
          continue
        } else {
          const rows = yield* sql<StoredRow>`UPDATE client_documents SET ${sql.update({ ...values, updatedAt: at })}
            WHERE organization_id = ${organizationId} AND id = ${before.id} RETURNING *`
          after = rows[0]
          updated++
        }
        ids.push(after.id)
        // Events as the API sees the document: a template is invisible, so it has none.
        if (isVisibleClientDocument(after)) {
          if (before === undefined || !isVisibleClientDocument(before)) yield* outbox.created(owner, "client_document", toClientDocument(after))
          else yield* outbox.updated(owner, "client_document", toClientDocument(before), toClientDocument(after))
        }
        if (clientDocumentIssuesVersion(before, after)) yield* issueVersion(owner, after, currency, at)
      }
      return { created, updated, unchanged, ids } satisfies ImportResult
    }))

  return { importClientDocuments } as const
})

/** The import of client documents (the admin command line's `import client-documents`). */
export class ClientDocumentImports extends Context.Service<ClientDocumentImports, Effect.Success<typeof makeClientDocumentImports>>()(
  "@bizops/server/ClientDocumentImports"
) {
  static readonly layer = Layer.effect(ClientDocumentImports, makeClientDocumentImports).pipe(Layer.provide(DocumentVersionsRepo.layer))
}
