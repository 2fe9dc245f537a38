import { Api } from "@bizops/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { crudHandlers } from "../Http/Respond.js"
import { ContactsRepo } from "./ContactsRepo.js"

export const ContactsHttp = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  Effect.map(ContactsRepo, (repo) => handlers.handleAll(crudHandlers(repo))))
