import { Api, CurrentPrincipal, offsetOf, pageRequest, paginationMeta } from "@bizops/domain"
import { eventCatalogEntries } from "@bizops/webhooks"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { created, ok } from "../Http/Respond.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

const accepted = <A>(body: A) => HttpServerResponse.jsonUnsafe(body, { status: 202 })

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    return handlers
      .handle("events", ({ query }) => {
        const page = pageRequest(query)
        const all = eventCatalogEntries()
        const from = offsetOf(page)
        return Effect.succeed(ok({ data: all.slice(from, from + page.pageSize), pagination: paginationMeta(page, all.length) }))
      })
      .handle("list", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.map(repo.list(principal, { updatedSince: query.updatedSince }, pageRequest(query)), ok)))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, params.id), ok)))
      .handle("update", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, params.id, payload), ok)))
      .handle("delete", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, params.id)))
      .handle("deliveries", ({ params, query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.deliveries(principal, params.id, pageRequest(query)), ok)))
      .handle("redeliver", ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.redeliver(principal, params.id, params.deliveryId), accepted)))
      .handle("test", ({ params }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.test(principal, params.id), accepted)))
  })
)
