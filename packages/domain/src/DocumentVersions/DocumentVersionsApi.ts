import { readEndpoints, resourceGroup } from "../Common/Crud.js"
import { DocumentVersion, DocumentVersionId, DocumentVersionList, DocumentVersionListParams } from "./DocumentVersion.js"

const versions = readEndpoints("document-versions", { id: DocumentVersionId, resource: DocumentVersion, listQuery: DocumentVersionListParams, list: DocumentVersionList }, {
  what: "a document version",
  list: "Lists every version (issued, superseded and voided), newest first: the audit trail. Filters documentType, documentId, versionStatus.",
  get: "Retrieves an issued version; a superseded or voided one is 404."
})

/** Read-only: versions are issued by the documents they belong to. */
export class DocumentVersionsApi extends resourceGroup(
  "documentVersions",
  { title: "Document versions", description: "The audit trail of what a client was sent: every issued, superseded and voided version of a document." },
  versions.list, versions.get
) {}
