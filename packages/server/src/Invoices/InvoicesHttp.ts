import { Api } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { created, crudHandlersInOrganization, inOrganization } from "../Http/Respond.js"
import { Invoices } from "./Invoices.js"

/** The invoices group over the `Invoices` service (which needs `InvoicesRepo`, provided by the server). */
export const InvoicesHttp = HttpApiBuilder.group(Api, "invoices", (handlers) =>
  Effect.map(Invoices, (invoices) =>
    handlers.handleAll({
      ...crudHandlersInOrganization(invoices),
      reissue: ({ params, payload }) =>
        Effect.map(inOrganization(invoices.reissue)(params.id, payload ?? {}), created)
    }))
).pipe(Layer.provide(Invoices.layer))
