import { Api } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlersInOrganization } from "../Http/Respond.js"
import { Contracts } from "./Contracts.js"

/** The contracts group over the `Contracts` service: its writes take the caller's principal, its reads the context's. */
export const ContractsHttp = HttpApiBuilder.group(Api, "contracts", (handlers) =>
  Effect.map(Contracts, (contracts) => handlers.handleAll(crudHandlersInOrganization(contracts)))).pipe(Layer.provide(Contracts.layer))
