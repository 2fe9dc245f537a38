import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlersInOrganization } from "../Http/Respond.js"
import { TimelineItemsRepo } from "./TimelineItemsRepo.js"

export const TimelineItemsHttp = HttpApiBuilder.group(Api, "timelineItems", (handlers) =>
  Effect.map(TimelineItemsRepo, (items) => handlers.handleAll(crudHandlersInOrganization(items))))
