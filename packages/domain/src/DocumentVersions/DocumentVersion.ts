import { Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { DateTime, Uuid } from "../Common/Values.js"

export const DocumentVersionId = Uuid.pipe(Schema.brand("DocumentVersionId"))
export type DocumentVersionId = typeof DocumentVersionId.Type

export const DocumentType = Schema.Literals(["smart-file", "invoice", "standalone-contract"])
export type DocumentType = typeof DocumentType.Type

export const VersionStatus = Schema.Literals(["issued", "superseded", "voided"])
export type VersionStatus = typeof VersionStatus.Type

export const DocumentRef = Schema.Struct({ relationTo: Schema.String, value: Schema.String }).annotate({
  identifier: "DocumentRef",
  description: "The document as a typed reference: its collection (invoices, ...) and its id"
})

/**
 * One issued version of a document: the audit trail. Its frozen content and any client access token
 * are kept by the service and never returned.
 */
export class DocumentVersion extends Schema.Class<DocumentVersion>("DocumentVersion")({
  id: DocumentVersionId,
  documentType: DocumentType,
  documentId: Schema.NullOr(Uuid),
  documentRef: Schema.NullOr(DocumentRef),
  versionNumber: Schema.Int,
  subVersionNumber: Schema.Int,
  versionStatus: VersionStatus,
  contentHash: Schema.String.annotate({ description: "Lowercase hex SHA-256 of the canonical JSON of what the client sees" }),
  currency: Schema.String,
  issuedAt: Schema.NullOr(DateTime),
  viewedAt: Schema.NullOr(DateTime),
  acceptedAt: Schema.NullOr(DateTime),
  acceptedBy: Schema.NullOr(Schema.Literals(["client", "operator", "signing", "backfill"])),
  supersededAt: Schema.NullOr(DateTime),
  supersededByVersionId: Schema.NullOr(DocumentVersionId),
  voidedAt: Schema.NullOr(DateTime),
  quoteConvertedAt: Schema.NullOr(DateTime),
  expiresAt: Schema.NullOr(DateTime),
  engagementProjectId: Schema.NullOr(Uuid),
  parentVersionId: Schema.NullOr(DocumentVersionId),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

export const DocumentVersionListParams = Schema.Struct({
  ...ListParams,
  documentType: Schema.optionalKey(DocumentType),
  documentId: Schema.optionalKey(Uuid),
  versionStatus: Schema.optionalKey(VersionStatus)
})

export const DocumentVersionList = ListOf(DocumentVersion, "DocumentVersionList")
