import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { getWith, listWith } from "../Http/Respond.js"
import { DocumentVersionsRepo } from "./DocumentVersionsRepo.js"

export const DocumentVersionsHttp = HttpApiBuilder.group(Api, "documentVersions", (handlers) =>
  Effect.map(DocumentVersionsRepo, (versions) =>
    handlers.handleAll({ list: listWith(versions.list), get: getWith(versions.get) })))
