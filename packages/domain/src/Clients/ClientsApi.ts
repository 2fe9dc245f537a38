import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Client, ClientCreate, ClientId, ClientList, ClientListParams, ClientUpdate } from "./Client.js"

const IdPath = Schema.Struct({ id: ClientId })

export class ClientsApi extends HttpApiGroup.make("clients")
  .add(
    HttpApiEndpoint.get("list", "/clients").annotate(RequiredScope, "clients:read")
      .setUrlParams(ClientListParams)
      .addSuccess(ClientList)
      .annotate(OpenApi.Description, "Lists clients, newest first. Leads are clients whose status is new, contacted or qualified: `?status=new`. Scope clients:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/clients").annotate(RequiredScope, "clients:write")
      .setPayload(ClientCreate)
      .addSuccess(Client, { status: 201 })
      .annotate(OpenApi.Description, "Creates a client. Scope clients:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/clients/:id").annotate(RequiredScope, "clients:read")
      .setPath(IdPath)
      .addSuccess(Client)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves a client. Scope clients:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/clients/:id").annotate(RequiredScope, "clients:write")
      .setPath(IdPath)
      .setPayload(ClientUpdate)
      .addSuccess(Client)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Updates a client; taxSettings fields are merged over the current ones. Scope clients:write.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/clients/:id").annotate(RequiredScope, "clients:write")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(OpenApi.Description, "Deletes a client that no contact or project points at (else 409 record_has_dependents). Scope clients:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Clients")
{}
