import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { created, ok } from "../Http/Respond.js"
import { Payments } from "./Payments.js"

/** The payments group over the `Payments` service (which needs `PaymentsRepo`, provided by the server). */
export const PaymentsHttp = HttpApiBuilder.group(Api, "payments", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* Payments
    return handlers
      .handle("list", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, {
            saleId: query.saleId,
            invoiceId: query.invoiceId,
            clientId: query.clientId,
            updatedSince: query.updatedSince
          }, pageRequest(query)).pipe(Effect.map(ok))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, params.id), ok)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, params.id, payload), ok)))
  })
).pipe(Layer.provide(Payments.layer))
