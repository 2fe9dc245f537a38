import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlers } from "../Http/Respond.js"
import { ProjectsRepo } from "./ProjectsRepo.js"

export const ProjectsHttp = HttpApiBuilder.group(Api, "projects", (handlers) =>
  Effect.map(ProjectsRepo, (repo) => handlers.handleAll(crudHandlers(repo))))
