import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, CurrentPrincipal, offsetOf, pageRequest, paginationMeta } from "@bizops/domain"
import { eventCatalogEntries } from "@bizops/webhooks"
import { Effect } from "effect"
import { created, ok } from "../Http/Respond.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

const accepted = <A>(body: A) => HttpServerResponse.unsafeJson(body, { status: 202 })

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    return handlers
      .handle("events", ({ urlParams }) => {
        const page = pageRequest(urlParams)
        const all = eventCatalogEntries()
        const from = offsetOf(page)
        return Effect.succeed(ok({ data: all.slice(from, from + page.pageSize), pagination: paginationMeta(page, all.length) }))
      })
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.map(repo.list(principal, { updatedSince: urlParams.updatedSince }, pageRequest(urlParams)), ok)))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, path.id), ok)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, path.id, payload), ok)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, path.id)))
      .handle("deliveries", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.deliveries(principal, path.id, pageRequest(urlParams)), ok)))
      .handle("redeliver", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.redeliver(principal, path.id, path.deliveryId), accepted)))
      .handle("test", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.test(principal, path.id), accepted)))
  })
)
