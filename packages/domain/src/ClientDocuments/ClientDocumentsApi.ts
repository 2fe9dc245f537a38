import { readEndpoints, resourceGroup } from "../Common/Crud.js"
import { ClientDocument, ClientDocumentId, ClientDocumentList, ClientDocumentListParams } from "./ClientDocument.js"

const clientDocuments = readEndpoints("client-documents", { id: ClientDocumentId, resource: ClientDocument, listQuery: ClientDocumentListParams, list: ClientDocumentList }, {
  what: "a client document",
  list: "Lists client documents (smart-files), newest first; templates are never listed. Filters clientId, projectId and status.",
  get: "Retrieves a client document. A template is 404, as if it did not exist."
})

/**
 * Read-only: client documents are written by the platform's smart-file editor (here, the operator import).
 * There is no write scope, so no write endpoint.
 */
export class ClientDocumentsApi extends resourceGroup(
  "clientDocuments",
  {
    title: "Client documents",
    description: "Smart-files (proposals, quotes, questionnaires) sent to clients, read-only. Templates are not part of the API. When a document becomes sent, a document version (documentType smart-file) records what the client was shown."
  },
  clientDocuments.list, clientDocuments.get
) {}
