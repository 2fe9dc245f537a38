import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { ClientsRepo } from "./ClientsRepo.js"

export const ClientsHttp = HttpApiBuilder.group(Api, "clients", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ClientsRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, { status: urlParams.status, updatedSince: urlParams.updatedSince }, pageRequest(urlParams))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.create(principal, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.get(principal, path.id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => repo.update(principal, path.id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, path.id)))
  })
)
