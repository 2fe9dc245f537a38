import { Api } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { createWith, getWith, inOrganization, listWith, updateWith } from "../Http/Respond.js"
import { Payments } from "./Payments.js"

/** The payments group over the `Payments` service (which needs `PaymentsRepo`, provided by the server). */
export const PaymentsHttp = HttpApiBuilder.group(Api, "payments", (handlers) =>
  Effect.map(Payments, (payments) =>
    handlers.handleAll({
      list: listWith(payments.list),
      create: createWith(inOrganization(payments.create)),
      get: getWith(payments.get),
      update: updateWith(inOrganization(payments.update))
    }))
).pipe(Layer.provide(Payments.layer))
