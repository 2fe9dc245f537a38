import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { created, ok } from "../Http/Respond.js"
import { Invoices } from "./Invoices.js"

/** The invoices group over the `Invoices` service (which needs `InvoicesRepo`, provided by the server). */
export const InvoicesHttp = HttpApiBuilder.group(Api, "invoices", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* Invoices
    return handlers
      .handle("list", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, {
            clientId: query.clientId,
            status: query.status,
            overdue: query.overdue,
            supersedesInvoice: query.supersedesInvoice,
            updatedSince: query.updatedSince
          }, pageRequest(query)).pipe(Effect.map(ok))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, params.id), ok)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, params.id, payload), ok)))
      .handle("delete", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, params.id)))
      .handle("reissue", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.reissue(principal, params.id, payload ?? {}), created)))
  })
).pipe(Layer.provide(Invoices.layer))
