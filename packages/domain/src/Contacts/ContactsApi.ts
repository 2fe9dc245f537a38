import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Contact, ContactCreate, ContactId, ContactList, ContactListParams, ContactUpdate } from "./Contact.js"

const IdPath = Schema.Struct({ id: ContactId })

export class ContactsApi extends HttpApiGroup.make("contacts")
  .add(
    HttpApiEndpoint.get("list", "/contacts").annotate(RequiredScope, "contacts:read")
      .setUrlParams(ContactListParams)
      .addSuccess(ContactList)
      .annotate(OpenApi.Description, "Lists contacts, newest first; `?clientId=` lists one client's. Scope contacts:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/contacts").annotate(RequiredScope, "contacts:write")
      .setPayload(ContactCreate)
      .addSuccess(Contact, { status: 201 })
      .addError(ConflictResponse)
      .annotate(OpenApi.Description, "Creates a contact. Making a contact primary clears the flag on the client's other contacts; an email is unique per client (409 duplicate_record). Scope contacts:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/contacts/:id").annotate(RequiredScope, "contacts:read")
      .setPath(IdPath)
      .addSuccess(Contact)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves a contact. Scope contacts:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/contacts/:id").annotate(RequiredScope, "contacts:write")
      .setPath(IdPath)
      .setPayload(ContactUpdate)
      .addSuccess(Contact)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(OpenApi.Description, "Updates a contact. Scope contacts:write.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/contacts/:id").annotate(RequiredScope, "contacts:write")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Deletes a contact. Scope contacts:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Contacts")
{}
