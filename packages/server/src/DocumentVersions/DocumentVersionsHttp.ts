import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Http/Respond.js"
import { DocumentVersionsRepo } from "./DocumentVersionsRepo.js"

export const DocumentVersionsHttp = HttpApiBuilder.group(Api, "documentVersions", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* DocumentVersionsRepo
    return handlers
      .handle("list", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, {
            documentType: query.documentType,
            documentId: query.documentId,
            versionStatus: query.versionStatus,
            updatedSince: query.updatedSince
          }, pageRequest(query)).pipe(Effect.map(ok))))
      .handle("get", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, params.id), ok)))
  })
)
