import { Api, CurrentRequestId, MethodNotAllowed } from "@bizops/domain"
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { errorResponse } from "../Http/Envelope.js"
import { getWith, listWith } from "../Http/Respond.js"
import type { RouteTable } from "../Http/Routes.js"
import { SalesRepo } from "./SalesRepo.js"

export const SalesHttp = HttpApiBuilder.group(Api, "sales", (handlers) =>
  Effect.map(SalesRepo, (sales) => handlers.handleAll({ list: listWith(sales.list), get: getWith(sales.get) })))

/** The path of a sale, as the router writes it. */
export const SALE_PATH = "/api/v1/sales/:id"

/**
 * `DELETE /api/v1/sales/{id}`: always 405 method_not_allowed with `details.code` sale_not_deletable and
 * `Allow` (the methods the route table has at the path: GET), whatever the id and the caller. A sale is
 * corrected by refund or void, never deleted (contract "Sales (read-only)"). It is a plain route of the
 * router, not an endpoint of the HttpApi: the specification lists no delete operation of sales (so the
 * OpenAPI document shows none), and the route reaches no repository, so it cannot delete anything. It
 * is left out of the route table on purpose, so that `Allow` never names DELETE.
 */
export const SaleDeleteRoute = (routes: RouteTable) =>
  HttpRouter.use((router) =>
    router.add(
      "DELETE",
      SALE_PATH,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = yield* CurrentRequestId
        const q = request.url.indexOf("?")
        const allowed = routes.allowedMethods(q === -1 ? request.url : request.url.slice(0, q))
        return errorResponse(
          new MethodNotAllowed({
            message: "A sale cannot be deleted; refund or void it instead",
            details: { code: "sale_not_deletable" }
          }),
          requestId,
          { allow: allowed.join(", ") }
        )
      })
    )
  )
