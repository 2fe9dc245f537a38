import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { getWith, listWith } from "../Http/Respond.js"
import { ClientDocumentsRepo } from "./ClientDocumentsRepo.js"

/**
 * List and get only. POST, PATCH and DELETE have no route, so the router answers them 405
 * method_not_allowed with `Allow: GET` (Http/Envelope.ts, from the route table).
 */
export const ClientDocumentsHttp = HttpApiBuilder.group(Api, "clientDocuments", (handlers) =>
  Effect.map(ClientDocumentsRepo, (documents) => handlers.handleAll({ list: listWith(documents.list), get: getWith(documents.get) })))
