import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlers } from "../Http/Respond.js"
import { MilestonesRepo } from "./MilestonesRepo.js"

export const MilestonesHttp = HttpApiBuilder.group(Api, "milestones", (handlers) =>
  Effect.map(MilestonesRepo, (repo) => handlers.handleAll(crudHandlers(repo))))
