import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { ok } from "../Http/Respond.js"
import { DocumentVersionsRepo } from "./DocumentVersionsRepo.js"

export const DocumentVersionsHttp = HttpApiBuilder.group(Api, "documentVersions", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* DocumentVersionsRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, {
            documentType: urlParams.documentType,
            documentId: urlParams.documentId,
            versionStatus: urlParams.versionStatus,
            updatedSince: urlParams.updatedSince
          }, pageRequest(urlParams)).pipe(Effect.map(ok))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, path.id), ok)))
  })
)
