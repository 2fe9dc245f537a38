import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Client, ClientCreate, ClientId, ClientList, ClientListParams, ClientUpdate } from "./Client.js"

const IdPath = Schema.Struct({ id: ClientId })

export class ClientsApi extends HttpApiGroup.make("clients")
  .add(
    HttpApiEndpoint.get("list", "/clients", { query: ClientListParams, success: ClientList, error: ApiErrors })
      .annotate(RequiredScope, "clients:read")
      .annotate(OpenApi.Description, "Lists clients, newest first. Leads are clients whose status is new, contacted or qualified: `?status=new`. Scope clients:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/clients", { payload: ClientCreate, success: Client.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "clients:write")
      .annotate(OpenApi.Description, "Creates a client. Scope clients:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/clients/:id", { params: IdPath, success: Client, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "clients:read")
      .annotate(OpenApi.Description, "Retrieves a client. Scope clients:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/clients/:id", { params: IdPath, payload: ClientUpdate, success: Client, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "clients:write")
      .annotate(OpenApi.Description, "Updates a client; taxSettings fields are merged over the current ones. Scope clients:write.")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/clients/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "clients:write")
      .annotate(OpenApi.Description, "Deletes a client that no contact or project points at (else 409 record_has_dependents). Scope clients:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Clients")
{}
