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
import { decodeAll, type Decoder, ImportError, type ImportResult, linkIssues } from "./Imports.js"

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
  { field: "contactId", table: "contacts", what: "contact" },
  { field: "clientId", table: "clients", what: "client" },
  { field: "projectId", table: "projects", what: "project" },
  { field: "engagementProjectId", table: "projects", what: "project" }
] as const

const makeClientDocumentImports = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox
  const versions = yield* DocumentVersionsRepo
  const clock = yield* Clock.Clock
  const now = Effect.map(clock.currentTimeMillis, (ms) => new Date(ms))

  const stored = (organizationId: string, externalId: string) =>
    Effect.map(
      sql<StoredRow>`SELECT * FROM client_documents WHERE organization_id = ${organizationId} AND external_id = ${externalId} FOR UPDATE`,
      (rows) => rows[0]
    )

  /** Issues the version of a document that became sent, with the document's expiry, conversion and engagement project. */
  const issueVersion = (owner: Owner, row: StoredRow, currency: string, at: Date) =>
    versions.issue(owner, {
      type: "smart-file",
      id: row.id,
      currency,
      quoteConvertedAt: row.quoteConvertedAt,
      expiresAt: row.expiresAt,
      engagementProjectId: row.engagementProjectId
    }, clientDocumentContent(row), at)

  const importClientDocuments = (organizationId: string, records: unknown) =>
    sql.withTransaction(Effect.gen(function*() {
      const owner: Owner = { organizationId }
      const { decoded, issues } = decodeAll(decodeClientDocument, records)
      if (issues.length > 0) return yield* Effect.fail(new ImportError(issues))

      issues.push(...yield* linkIssues(fast, organizationId, decoded, LINKS))
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
