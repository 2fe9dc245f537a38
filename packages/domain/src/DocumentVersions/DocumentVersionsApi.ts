import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, NotFoundResponse } from "../Common/Errors.js"
import { DocumentVersion, DocumentVersionId, DocumentVersionList, DocumentVersionListParams } from "./DocumentVersion.js"

export class DocumentVersionsApi extends HttpApiGroup.make("documentVersions")
  .add(
    HttpApiEndpoint.get("list", "/document-versions", { query: DocumentVersionListParams, success: DocumentVersionList, error: ApiErrors })
      .annotate(RequiredScope, "document-versions:read")
      .annotate(
        OpenApi.Description,
        "Lists every version (issued, superseded and voided), newest first: the audit trail. Filters documentType, documentId, versionStatus. Scope document-versions:read."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/document-versions/:id", { params: Schema.Struct({ id: DocumentVersionId }), success: DocumentVersion, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "document-versions:read")
      .annotate(OpenApi.Description, "Retrieves an issued version; a superseded or voided one is 404. Scope document-versions:read.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Document versions")
{}
