import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentPrincipal, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { created, ok } from "../Http/Respond.js"
import { EventDaysRepo } from "./EventDaysRepo.js"

export const EventDaysHttp = HttpApiBuilder.group(Api, "eventDays", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* EventDaysRepo
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          repo.list(principal, { projectId: urlParams.projectId, updatedSince: urlParams.updatedSince }, pageRequest(urlParams)).pipe(Effect.map(ok))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.create(principal, payload), created)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.get(principal, path.id), ok)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => Effect.map(repo.update(principal, path.id, payload), ok)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (principal) => repo.remove(principal, path.id)))
  })
)
