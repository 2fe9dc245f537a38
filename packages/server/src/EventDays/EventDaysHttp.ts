import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlers } from "../Http/Respond.js"
import { EventDaysRepo } from "./EventDaysRepo.js"

export const EventDaysHttp = HttpApiBuilder.group(Api, "eventDays", (handlers) =>
  Effect.map(EventDaysRepo, (repo) => handlers.handleAll(crudHandlers(repo))))
