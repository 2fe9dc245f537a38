import { Api, offsetOf, pageRequest, paginationMeta } from "@bizops/domain"
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
      .handle("list", ({ query }) => Effect.map(repo.list(query, pageRequest(query)), ok))
      .handle("create", ({ payload }) => Effect.map(repo.create(payload), created))
      .handle("get", ({ params }) => Effect.map(repo.get(params.id), ok))
      .handle("update", ({ params, payload }) => Effect.map(repo.update(params.id, payload), ok))
      .handle("delete", ({ params }) => repo.remove(params.id))
      .handle("deliveries", ({ params, query }) => Effect.map(repo.deliveries(params.id, pageRequest(query)), ok))
      .handle("redeliver", ({ params }) => Effect.map(repo.redeliver(params.id, params.deliveryId), accepted))
      .handle("test", ({ params }) => Effect.map(repo.test(params.id), accepted))
  })
)
