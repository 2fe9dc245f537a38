import { CurrentPrincipal, type PageRequest, pageRequest, type Principal } from "@bizops/domain"
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

/** A list endpoint's handler: the repository's list with the page asked for, answered 200. */
export const listWith = <Filters, E, R>(list: (filters: Filters, page: PageRequest) => Effect.Effect<unknown, E, R>) =>
({ query }: { readonly query: Filters & PageQuery }) => Effect.map(list(query, pageRequest(query)), ok)

/** A create endpoint's handler: answered 201 with the new record. */
export const createWith = <Create, E, R>(create: (input: Create) => Effect.Effect<unknown, E, R>) =>
({ payload }: { readonly payload: Create }) => Effect.map(create(payload), created)

/** A get endpoint's handler (`/{id}`), answered 200. */
export const getWith = <Id, E, R>(get: (id: Id) => Effect.Effect<unknown, E, R>) =>
({ params }: { readonly params: { readonly id: Id } }) => Effect.map(get(params.id), ok)

/** An update endpoint's handler (`PATCH /{id}`), answered 200 with the record after the change. */
export const updateWith = <Id, Update, E, R>(update: (id: Id, input: Update) => Effect.Effect<unknown, E, R>) =>
({ params, payload }: { readonly params: { readonly id: Id }; readonly payload: Update }) =>
  Effect.map(update(params.id, payload), ok)

/** A delete endpoint's handler (`DELETE /{id}`), answered 204. */
export const deleteWith = <Id, E, R>(remove: (id: Id) => Effect.Effect<void, E, R>) =>
({ params }: { readonly params: { readonly id: Id } }) => remove(params.id)

/**
 * A repository operation that takes the caller's principal first, with the principal read from the
 * context (the authentication middleware provides it), for the handlers above.
 */
export const inOrganization = <Args extends ReadonlyArray<unknown>, A, E, R>(
  operation: (principal: Principal, ...args: Args) => Effect.Effect<A, E, R>
) =>
(...args: Args) => Effect.flatMap(CurrentPrincipal, (principal) => operation(principal, ...args))

/**
 * The handlers of a group with list, create, get, update and delete, for a repository with those
 * operations (the resource mechanism's): `handlers.handleAll(crudHandlers(repo))`. The types come from
 * the repository at each use, so the group's endpoints are checked against it there.
 */
export const crudHandlers = <Filters, Create, Update, Id, EL, EC, EG, EU, ED, R>(repo: {
  readonly list: (filters: Filters, page: PageRequest) => Effect.Effect<unknown, EL, R>
  readonly create: (input: Create) => Effect.Effect<unknown, EC, R>
  readonly get: (id: Id) => Effect.Effect<unknown, EG, R>
  readonly update: (id: Id, input: Update) => Effect.Effect<unknown, EU, R>
  readonly remove: (id: Id) => Effect.Effect<void, ED, R>
}) => ({
  list: listWith(repo.list),
  create: createWith(repo.create),
  get: getWith(repo.get),
  update: updateWith(repo.update),
  delete: deleteWith(repo.remove)
})

/**
 * `crudHandlers` for a service whose writes take the caller's principal first (they run rules across
 * records under locks) and whose reads are the resource mechanism's (they read it from the context).
 */
export const crudHandlersInOrganization = <Filters, Create, Update, Id, EL, EC, EG, EU, ED, R>(service: {
  readonly list: (filters: Filters, page: PageRequest) => Effect.Effect<unknown, EL, R>
  readonly create: (principal: Principal, input: Create) => Effect.Effect<unknown, EC, R>
  readonly get: (id: Id) => Effect.Effect<unknown, EG, R>
  readonly update: (principal: Principal, id: Id, input: Update) => Effect.Effect<unknown, EU, R>
  readonly remove: (principal: Principal, id: Id) => Effect.Effect<void, ED, R>
}) =>
  crudHandlers({
    list: service.list,
    create: inOrganization(service.create),
    get: service.get,
    update: inOrganization(service.update),
    remove: inOrganization(service.remove)
  })
