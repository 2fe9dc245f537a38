import { ClientDocument, type ClientDocumentId, type ClientDocumentListParams, type Filters, type PageRequest } from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import { fromRow, type RowOf } from "../Sql/Rows.js"

/** A client document as the API reads it (the view `client_document_rows`: never a template). */
export type ClientDocumentRow = RowOf<typeof ClientDocument>

export const toClientDocument = fromRow(ClientDocument)

const makeClientDocumentsRepo = Effect.gen(function*() {
  // The view leaves templates out: a template is never listed, and its id is 404 like no record at all.
  const documents = yield* makeResource({ table: "client_document_rows", what: "client document", toResource: toClientDocument })

  /** Newest first; filters clientId, projectId, status and updatedSince. */
  const list = (filters: Filters<typeof ClientDocumentListParams>, page: PageRequest) => documents.list(byFilters(filters), page)

  return { list, get: (id: ClientDocumentId) => documents.get(id) } as const
})

/**
 * Client documents (smart-files), read-only over the API: the operator import writes them
 * (Imports/ClientDocuments.ts), so this repository has no create, update or remove.
 */
export class ClientDocumentsRepo extends Context.Service<ClientDocumentsRepo, Effect.Success<typeof makeClientDocumentsRepo>>()(
  "@bizops/server/ClientDocumentsRepo"
) {
  static readonly layer = Layer.effect(ClientDocumentsRepo, makeClientDocumentsRepo)
}
