import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Contact, ContactCreate, ContactId, ContactList, ContactListParams, ContactUpdate } from "./Contact.js"

const IdPath = Schema.Struct({ id: ContactId })

export class ContactsApi extends HttpApiGroup.make("contacts")
  .add(
    HttpApiEndpoint.get("list", "/contacts", { query: ContactListParams, success: ContactList, error: ApiErrors })
      .annotate(RequiredScope, "contacts:read")
      .annotate(OpenApi.Description, "Lists contacts, newest first; `?clientId=` lists one client's. Scope contacts:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/contacts", { payload: ContactCreate, success: Contact.pipe(HttpApiSchema.status(201)), error: [...ApiErrors, ConflictResponse] })
      .annotate(RequiredScope, "contacts:write")
      .annotate(OpenApi.Description, "Creates a contact. Making a contact primary clears the flag on the client's other contacts; an email is unique per client (409 duplicate_record). Scope contacts:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/contacts/:id", { params: IdPath, success: Contact, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "contacts:read")
      .annotate(OpenApi.Description, "Retrieves a contact. Scope contacts:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/contacts/:id", { params: IdPath, payload: ContactUpdate, success: Contact, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "contacts:write")
      .annotate(OpenApi.Description, "Updates a contact. Scope contacts:write.")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/contacts/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "contacts:write")
      .annotate(OpenApi.Description, "Deletes a contact. Scope contacts:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Contacts")
{}
