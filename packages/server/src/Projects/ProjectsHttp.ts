import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { ProjectsRepo } from "./ProjectsRepo.js"

export const ProjectsHttp = HttpApiBuilder.group(Api, "projects", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, { clientId: urlParams.clientId, status: urlParams.status, updatedSince: urlParams.updatedSince }, pageRequest(urlParams))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.create(principal, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.get(principal, path.id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => repo.update(principal, path.id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, path.id)))
  })
)
