import {
  canonicalJson,
  DocumentVersion,
  DocumentVersionId,
  type DocumentVersionListParams,
  type DocumentType,
  type Filters,
  notFound,
  type PageRequest
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { FastSql } from "../Sql/Fast.js"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import { fromRow } from "../Sql/Rows.js"
import type { Owner } from "../Webhooks/Outbox.js"

const toDocumentVersion = fromRow(DocumentVersion)

/** The collection a document type's records live in, as `documentRef.relationTo` names it. */
const RELATION: Record<DocumentType, string> = {
  "smart-file": "client-documents",
  invoice: "invoices",
  "standalone-contract": "contracts"
}

/** Lowercase hex SHA-256 of the canonical JSON of what the client sees. */
export const contentHash = (content: unknown): string => createHash("sha256").update(canonicalJson(content)).digest("hex")

const makeDocumentVersionsRepo = Effect.gen(function*() {
  const fast = yield* FastSql

  const versions = yield* makeResource({ table: "document_version_rows", what: "document version", toResource: toDocumentVersion })

  const list = (filters: Filters<typeof DocumentVersionListParams>, page: PageRequest) =>
    versions.list(byFilters(filters), page)

  /** An issued version; a superseded or voided one is 404 (the list shows them all). */
  const get = (id: DocumentVersionId) =>
    Effect.flatMap(versions.get(id), (version) => version.versionStatus === "issued" ? Effect.succeed(version) : Effect.fail(notFound("document version")))

  /**
   * Issues a version of a document with this content, superseding the issued one, unless the issued
   * one already has this content (then nothing changes). Call it inside the document's transaction,
   * with the document's row locked.
   */
  const issue = (
    principal: Owner,
    document: {
      readonly type: DocumentType
      readonly id: string
      readonly currency: string
      /** A smart-file's dates and engagement project, carried by its version (null or absent: none). */
      readonly quoteConvertedAt?: Date | null
      readonly expiresAt?: Date | null
      readonly engagementProjectId?: string | null
    },
    content: unknown,
    at: Date
  ) =>
    Effect.gen(function*() {
      const hash = contentHash(content)
      const [current] = yield* fast.rows<{ readonly id: string; readonly contentHash: string }>(
        `SELECT id, content_hash FROM document_versions
         WHERE organization_id = $1 AND document_type = $2 AND document_id = $3 AND version_status = 'issued'`,
        [principal.organizationId, document.type, document.id]
      )
      if (current !== undefined && current.contentHash === hash) return
      const id = randomUUID()
      if (current !== undefined) {
        yield* fast.rows(
          `UPDATE document_versions SET version_status = 'superseded', superseded_at = $3, superseded_by_version_id = $4, updated_at = $3
           WHERE organization_id = $1 AND id = $2`,
          [principal.organizationId, current.id, at, id]
        )
      }
      yield* fast.rows(
        `INSERT INTO document_versions (id, organization_id, document_type, document_id, document_ref, version_number,
           version_status, content_hash, content, currency, issued_at, created_at, updated_at, quote_converted_at, expires_at,
           engagement_project_id)
         SELECT $1, $2, $3, $4, $5, COALESCE(max(version_number), 0) + 1, 'issued', $6, $7, $8, $9, $9, $9, $10, $11, $12
         FROM document_versions WHERE organization_id = $2 AND document_type = $3 AND document_id = $4`,
        [
          id,
          principal.organizationId,
          document.type,
          document.id,
          JSON.stringify({ relationTo: RELATION[document.type], value: document.id }),
          hash,
          JSON.stringify(content),
          document.currency,
          at,
          document.quoteConvertedAt ?? null,
          document.expiresAt ?? null,
          document.engagementProjectId ?? null
        ]
      )
    })

  /** Marks the issued version of a document voided (the document was voided). */
  const voidIssued = (principal: Owner, document: { readonly type: DocumentType; readonly id: string }, at: Date) =>
    fast.rows(
      `UPDATE document_versions SET version_status = 'voided', voided_at = $4, updated_at = $4
       WHERE organization_id = $1 AND document_type = $2 AND document_id = $3 AND version_status = 'issued'`,
      [principal.organizationId, document.type, document.id, at]
    )

  return { list, get, issue, voidIssued } as const
})

/**
 * Document versions: the audit trail of what was issued to clients. The API reads them (list: every
 * version; get: issued ones only); the documents' repositories issue and void them, on their own
 * transaction. The frozen content is written but never read back into a response (the API reads the
 * view document_version_rows, which does not have it).
 */
export class DocumentVersionsRepo extends Context.Service<DocumentVersionsRepo, Effect.Success<typeof makeDocumentVersionsRepo>>()("@bizops/server/DocumentVersionsRepo") {
  static readonly layer = Layer.effect(DocumentVersionsRepo, makeDocumentVersionsRepo)
}
