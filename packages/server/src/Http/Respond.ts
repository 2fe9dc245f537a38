import { type PageRequest, pageRequest } from "@bizops/domain"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"

/**
 * The fast way out for a resource: its JSON text is its encoded form. This holds for every resource
 * schema of the API (their only non-JSON values are Dates, which JSON writes as ISO 8601 with
 * milliseconds, as the schema does); `packages/domain/src/Common/JsonEncoding.test.ts` proves it
 * for arbitrary values of each schema. It skips re-validating, on the way out, values that the
 * repository read from our own (constrained) tables.
 */
export const ok = <A>(body: A) => HttpServerResponse.jsonUnsafe(body)

export const created = <A>(body: A) => HttpServerResponse.jsonUnsafe(body, { status: 201 })

/** The list query every list takes: the page asked for (the rest are the resource's filters). */
type PageQuery = { readonly page?: number | undefined; readonly pageSize?: number | undefined }

/**
 * The handlers of a group with list, create, get, update and delete, for a repository with those
 * operations (the resource mechanism's): `handlers.handleAll(crudHandlers(repo))`. The types come from
 * the repository at each use, so the group's endpoints are checked against it there.
 */
export const crudHandlers = <Filters, Create, Update, Id, E, R>(repo: {
  readonly list: (filters: Filters, page: PageRequest) => Effect.Effect<unknown, E, R>
  readonly create: (input: Create) => Effect.Effect<unknown, E, R>
  readonly get: (id: Id) => Effect.Effect<unknown, E, R>
  readonly update: (id: Id, input: Update) => Effect.Effect<unknown, E, R>
  readonly remove: (id: Id) => Effect.Effect<void, E, R>
}) => ({
  list: ({ query }: { readonly query: Filters & PageQuery }) => Effect.map(repo.list(query, pageRequest(query)), ok),
  create: ({ payload }: { readonly payload: Create }) => Effect.map(repo.create(payload), created),
  get: ({ params }: { readonly params: { readonly id: Id } }) => Effect.map(repo.get(params.id), ok),
  update: ({ params, payload }: { readonly params: { readonly id: Id }; readonly payload: Update }) =>
    Effect.map(repo.update(params.id, payload), ok),
  delete: ({ params }: { readonly params: { readonly id: Id } }) => repo.remove(params.id)
})
