import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { NotFoundResponse } from "../Common/Errors.js"
import { DocumentVersion, DocumentVersionId, DocumentVersionList, DocumentVersionListParams } from "./DocumentVersion.js"

export class DocumentVersionsApi extends HttpApiGroup.make("documentVersions")
  .add(
    HttpApiEndpoint.get("list", "/document-versions").annotate(RequiredScope, "document-versions:read")
      .setUrlParams(DocumentVersionListParams)
      .addSuccess(DocumentVersionList)
      .annotate(
        OpenApi.Description,
        "Lists every version (issued, superseded and voided), newest first: the audit trail. Filters documentType, documentId, versionStatus. Scope document-versions:read."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/document-versions/:id").annotate(RequiredScope, "document-versions:read")
      .setPath(Schema.Struct({ id: DocumentVersionId }))
      .addSuccess(DocumentVersion)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves an issued version; a superseded or voided one is 404. Scope document-versions:read.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Document versions")
{}
