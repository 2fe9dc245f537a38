import { Api, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { created, ok } from "../Http/Respond.js"
import { EventDaysRepo } from "./EventDaysRepo.js"

export const EventDaysHttp = HttpApiBuilder.group(Api, "eventDays", (handlers) =>
  Effect.map(EventDaysRepo, (repo) =>
    handlers
      .handle("list", ({ query }) => Effect.map(repo.list(query, pageRequest(query)), ok))
      .handle("create", ({ payload }) => Effect.map(repo.create(payload), created))
      .handle("get", ({ params }) => Effect.map(repo.get(params.id), ok))
      .handle("update", ({ params, payload }) => Effect.map(repo.update(params.id, payload), ok))
      .handle("delete", ({ params }) => repo.remove(params.id))))
