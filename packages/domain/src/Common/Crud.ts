import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { Schema } from "effect"
import { Authentication, type RESOURCES, RequiredScope } from "./Auth.js"
import { CreateErrors, DeleteErrors, ListErrors, ReadErrors, UpdateErrors } from "./Errors.js"

/** A resource's name of section 4: its collection is `/<name>` and its scopes `<name>:read` and `<name>:write`. */
export type ResourceName = (typeof RESOURCES)[number]

/** The schemas of a resource read through `GET /<name>` and `GET /<name>/:id`. */
export interface ReadSchemas<Id extends Schema.Top, Resource extends Schema.Top, ListQuery extends Schema.Top, ListPage extends Schema.Top> {
  readonly id: Id
  readonly resource: Resource
  readonly listQuery: ListQuery
  readonly list: ListPage
}

/** The schemas of a resource that is also written through POST, PATCH and DELETE. */
export interface CrudSchemas<Id extends Schema.Top, Resource extends Schema.Top, Create extends Schema.Top, Update extends Schema.Top, ListQuery extends Schema.Top, ListPage extends Schema.Top>
  extends ReadSchemas<Id, Resource, ListQuery, ListPage>
{
  readonly create: Create
  readonly update: Update
}

/**
 * What a resource declares besides its schemas: `what` names one record with its article ("a contact",
 * "an event day"), and the texts of its operations (get, update and delete default to "Retrieves a
 * contact." and the like; each text ends with the scope it needs).
 */
export interface Descriptions {
  readonly what: string
  readonly list: string
  readonly create?: string | undefined
  readonly get?: string | undefined
  readonly update?: string | undefined
  readonly delete?: string | undefined
}

/** The operation's text, ending with the scope it needs (unless the text already says it). */
const described = (text: string, scope: string) => (text.includes("Scope ") ? text : `${text} Scope ${scope}.`)

/**
 * The two read endpoints of a resource, generated from its schemas: `GET /<name>` (a page) and
 * `GET /<name>/:id`, each with its `<name>:read` scope declared on it and the API-wide errors.
 */
export const readEndpoints = <
  const Name extends ResourceName,
  Id extends Schema.Top,
  Resource extends Schema.Top,
  ListQuery extends Schema.Top,
  ListPage extends Schema.Top
>(name: Name, schemas: ReadSchemas<Id, Resource, ListQuery, ListPage>, text: Descriptions) => {
  const read = `${name}:read` as const
  return {
    list: HttpApiEndpoint.get("list", `/${name}`, { query: schemas.listQuery, success: schemas.list, error: ListErrors })
      .annotate(RequiredScope, read)
      .annotate(OpenApi.Summary, `List ${name.replaceAll("-", " ")}`)
      .annotate(OpenApi.Description, described(text.list, read)),
    get: HttpApiEndpoint.get("get", `/${name}/:id`, { params: Schema.Struct({ id: schemas.id }), success: schemas.resource, error: ReadErrors })
      .annotate(RequiredScope, read)
      .annotate(OpenApi.Summary, `Retrieve ${text.what}`)
      .annotate(OpenApi.Description, described(text.get ?? `Retrieves ${text.what}.`, read))
  }
}

/**
 * The five endpoints of a resource, generated from its schemas: the two of `readEndpoints`,
 * `POST /<name>` (201), `PATCH /<name>/:id` and `DELETE /<name>/:id` (204), the last three with the
 * `<name>:write` scope. Every type is inferred from the schemas passed in (no casts); a group adds the
 * ones it has with `resourceGroup`.
 */
export const crudEndpoints = <
  const Name extends ResourceName,
  Id extends Schema.Top,
  Resource extends Schema.Top,
  Create extends Schema.Top,
  Update extends Schema.Top,
  ListQuery extends Schema.Top,
  ListPage extends Schema.Top
>(name: Name, schemas: CrudSchemas<Id, Resource, Create, Update, ListQuery, ListPage>, text: Descriptions) => {
  const write = `${name}:write` as const
  const params = Schema.Struct({ id: schemas.id })
  return {
    ...readEndpoints(name, schemas, text),
    create: HttpApiEndpoint.post("create", `/${name}`, { payload: schemas.create, success: schemas.resource.pipe(HttpApiSchema.status(201)), error: CreateErrors })
      .annotate(RequiredScope, write)
      .annotate(OpenApi.Summary, `Create ${text.what}`)
      .annotate(OpenApi.Description, described(text.create ?? `Creates ${text.what}.`, write)),
    update: HttpApiEndpoint.patch("update", `/${name}/:id`, { params, payload: schemas.update, success: schemas.resource, error: UpdateErrors })
      .annotate(RequiredScope, write)
      .annotate(OpenApi.Summary, `Update ${text.what}`)
      .annotate(OpenApi.Description, described(text.update ?? `Updates ${text.what}.`, write)),
    delete: HttpApiEndpoint.delete("delete", `/${name}/:id`, { params, success: HttpApiSchema.NoContent, error: DeleteErrors })
      .annotate(RequiredScope, write)
      .annotate(OpenApi.Summary, `Delete ${text.what}`)
      .annotate(OpenApi.Description, described(text.delete ?? `Deletes ${text.what}.`, write))
  }
}

/**
 * A group of authenticated endpoints under `/api/v1`, with its tag's title and description for the
 * documentation: `class ContactsApi extends resourceGroup("contacts", { title: "Contacts", description: "…" }, contacts.list, …) {}`.
 */
export const resourceGroup = <const Id extends string, const Endpoints extends NonEmptyReadonlyArray<HttpApiEndpoint.Constraint>>(
  id: Id,
  tag: { readonly title: string; readonly description: string },
  ...endpoints: Endpoints
) =>
  HttpApiGroup.make(id)
    .add(...endpoints)
    .middleware(Authentication)
    .prefix("/api/v1")
    .annotate(OpenApi.Title, tag.title)
    .annotate(OpenApi.Description, tag.description)
