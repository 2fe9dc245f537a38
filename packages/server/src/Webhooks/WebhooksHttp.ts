import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
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
        const { page, pageSize } = pageRequest(urlParams)
        const all = eventCatalogEntries()
        const totalPages = Math.ceil(all.length / pageSize)
        return Effect.succeed(ok({
          data: all.slice((page - 1) * pageSize, page * pageSize),
          pagination: { page, pageSize, total: all.length, totalPages, hasMore: page < totalPages }
        }))
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
