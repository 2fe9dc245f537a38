import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { created, ok } from "../Http/Respond.js"
import { ContactsRepo } from "./ContactsRepo.js"

export const ContactsHttp = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* ContactsRepo
    return handlers
      .handle("list", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, { clientId: query.clientId, updatedSince: query.updatedSince }, pageRequest(query)).pipe(Effect.map(ok))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, params.id), ok)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, params.id, payload), ok)))
      .handle("delete", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, params.id)))
  })
)
