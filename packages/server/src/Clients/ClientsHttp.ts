import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlers } from "../Http/Respond.js"
import { ClientsRepo } from "./ClientsRepo.js"

export const ClientsHttp = HttpApiBuilder.group(Api, "clients", (handlers) =>
  Effect.map(ClientsRepo, (repo) => handlers.handleAll(crudHandlers(repo))))
