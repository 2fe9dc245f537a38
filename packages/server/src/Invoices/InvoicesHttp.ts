import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { created, ok } from "../Http/Respond.js"
import { InvoicesRepo } from "./InvoicesRepo.js"

export const InvoicesHttp = HttpApiBuilder.group(Api, "invoices", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* InvoicesRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, {
            clientId: urlParams.clientId,
            status: urlParams.status,
            overdue: urlParams.overdue,
            supersedesInvoice: urlParams.supersedesInvoice,
            updatedSince: urlParams.updatedSince
          }, pageRequest(urlParams)).pipe(Effect.map(ok))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, path.id), ok)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, path.id, payload), ok)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, path.id)))
      .handle("reissue", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.reissue(principal, path.id, payload ?? {}), created)))
  })
)
