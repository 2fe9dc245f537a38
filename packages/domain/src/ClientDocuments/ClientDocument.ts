/**
 * The Client document resource (issue 16; specification "Client document (read-only)"): a smart-file
 * (proposal, quote, questionnaire) that another part of the platform writes. The operator import stands
 * in for it (contract: "Records that arrive from outside the API" and "Contracts, client documents,
 * milestones"). Templates are stored but never listed nor returned.
 */
import { Effect, Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ContactId } from "../Contacts/Contact.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, DateTime, MaxString, Uuid } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"

export const ClientDocumentId = Uuid.pipe(Schema.brand("ClientDocumentId"))
export type ClientDocumentId = typeof ClientDocumentId.Type

export const ClientDocumentStatuses = ["draft", "sent", "viewed", "in_progress", "accepted", "completed", "expired", "void"] as const
export const ClientDocumentStatus = Schema.Literals(ClientDocumentStatuses)
export type ClientDocumentStatus = typeof ClientDocumentStatus.Type

/** The only kind the API knows: a smart-file. */
export const ClientDocumentKind = Schema.Literal("smart-file")
export type ClientDocumentKind = typeof ClientDocumentKind.Type

export class ClientDocument extends Schema.Class<ClientDocument>("ClientDocument")({
  id: ClientDocumentId,
  kind: ClientDocumentKind,
  title: Schema.NullOr(Schema.String),
  status: ClientDocumentStatus,
  contactId: Schema.NullOr(ContactId),
  clientId: Schema.NullOr(ClientId),
  projectId: Schema.NullOr(ProjectId),
  engagementProjectId: Schema.NullOr(ProjectId).annotate({ description: "The project the document was converted into (its engagement), if any" }),
  isTemplate: Schema.Boolean.annotate({ description: "Always false: templates are not part of the API" }),
  clientUrl: Schema.NullOr(Schema.String).annotate({ description: "Where the client opens the document" }),
  quoteConvertedAt: Schema.NullOr(DateTime),
  expiresAt: Schema.NullOr(DateTime),
  archivedAt: Schema.NullOr(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** An optional field of an import that may be null; left out, it is null. */
const NullableField = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/** An absolute http(s) address: the link a client is sent must not be a `javascript:` or a relative one. */
export const ClientUrl = MaxString(2000).check(
  Schema.makeFilter((s: string) => {
    if (!URL.canParse(s)) return false
    const protocol = new URL(s).protocol
    return protocol === "https:" || protocol === "http:"
  }, { message: "must be an absolute http or https URL" })
)

/**
 * One client document as an import file gives it. Upserted by `externalId`. `status` is required (the
 * platform always knows it; guessing draft could hide a document already sent); `isTemplate` defaults
 * to false when decoded. Every other field may be left out, which means null. Ids name records of the
 * organization (the importer checks: linked_record_not_found); `engagementProjectId` names a project.
 * Timestamps are ISO 8601 date-times in the file.
 */
export const ClientDocumentImport = Schema.Struct({
  externalId: BoundedString(1, 255),
  title: NullableField(MaxString(500)),
  status: ClientDocumentStatus,
  contactId: NullableField(ContactId),
  clientId: NullableField(ClientId),
  projectId: NullableField(ProjectId),
  engagementProjectId: NullableField(ProjectId),
  isTemplate: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  clientUrl: NullableField(ClientUrl),
  quoteConvertedAt: NullableField(DateTime),
  expiresAt: NullableField(DateTime),
  archivedAt: NullableField(DateTime)
}).annotate({
  identifier: "ClientDocumentImport",
  examples: [{
    externalId: "sf-2027-0042",
    title: "Wedding photography proposal",
    status: "sent",
    clientId: ClientId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"),
    isTemplate: false,
    clientUrl: "https://clients.example.com/p/sf-2027-0042"
  }]
})
export type ClientDocumentImport = typeof ClientDocumentImport.Type

/** A file of client documents: a JSON array of records. */
export const ClientDocumentImportFile = Schema.Array(ClientDocumentImport)

export const ClientDocumentListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optionalKey(ClientId),
  projectId: Schema.optionalKey(ProjectId),
  status: Schema.optionalKey(ClientDocumentStatus)
})

export const ClientDocumentList = ListOf(ClientDocument, "ClientDocumentList")

/** What the rules below read of a document (a stored row, an import record with its defaults, or the resource). */
export interface ClientDocumentState {
  readonly status: ClientDocumentStatus
  readonly isTemplate: boolean
}

/** A template is stored but never part of the API: not listed, and 404 by id. */
export const isVisibleClientDocument = (doc: { readonly isTemplate: boolean }): boolean => !doc.isTemplate

/** Whether a document is sent, as the API sees it: a template is never sent to anyone. */
const isSentVisibly = (doc: ClientDocumentState): boolean => isVisibleClientDocument(doc) && doc.status === "sent"

/**
 * Whether a change of a document issues a document version (`documentType` smart-file): only when it
 * becomes sent. `before` is undefined for a new record (one imported as sent issues); sent → sent does not
 * (nothing became sent), and a template never issues. A template turned into a document while sent counts
 * as becoming sent: before, no client could see it.
 */
export const clientDocumentIssuesVersion = (before: ClientDocumentState | undefined, after: ClientDocumentState): boolean =>
  isSentVisibly(after) && (before === undefined || !isSentVisibly(before))

/** What of a document {@link clientDocumentContent} reads. */
export interface ClientDocumentContentSource {
  readonly kind: ClientDocumentKind
  readonly title: string | null
  readonly contactId: string | null
  readonly clientId: string | null
  readonly projectId: string | null
  readonly clientUrl: string | null
  readonly expiresAt: Date | null
}

/**
 * What the client sees of a document: the content of a document version, hashed into its contentHash
 * (SHA-256 of the canonical JSON of this). Status, template flag, conversion, archiving, the engagement
 * project and timestamps are not content; the expiry is (the client is told until when the document holds),
 * as an ISO 8601 string, since canonical JSON does not write Dates.
 */
export const clientDocumentContent = (doc: ClientDocumentContentSource) => ({
  kind: doc.kind,
  title: doc.title,
  contactId: doc.contactId,
  clientId: doc.clientId,
  projectId: doc.projectId,
  clientUrl: doc.clientUrl,
  expiresAt: doc.expiresAt === null ? null : doc.expiresAt.toISOString()
})
