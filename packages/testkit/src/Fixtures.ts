import { Effect } from "effect"
import { expect } from "vitest"
import { get, post } from "./Http.js"
import { TestServer } from "./TestServer.js"

/**
 * Records a test needs, made over real HTTP as a client would make them: each call expects the
 * success status, so that a fixture that was refused fails the test where it was made.
 */

/** Posts `body` to `path` with the API key and expects 201; the record as the API returns it. */
export const created = (path: string, key: string, body: unknown) =>
  Effect.map(post(path, body, { key }), (res) => {
    expect(res.status).toBe(201)
    return res.body
  })

/** Gets `path` with the API key and expects 200; the body. */
export const fetched = (path: string, key: string) =>
  Effect.map(get(path, { key }), (res) => {
    expect(res.status).toBe(200)
    return res.body
  })

/** A client named "Client", or with `fields` on top. */
export const newClient = (key: string, fields: Record<string, unknown> = {}) =>
  Effect.map(created("/api/v1/clients", key, { name: "Client", ...fields }), (body): { readonly id: string; readonly businessId: string } => body)

/** A contact of a client. */
export const newContact = (key: string, clientId: string, name = "Billing") =>
  Effect.map(created("/api/v1/contacts", key, { name, clientId }), (body): { readonly id: string } => body)

/** A project of a client. */
export const newProject = (key: string, clientId: string, name = "Wedding") =>
  Effect.map(created("/api/v1/projects", key, { name, clientId }), (body): { readonly id: string } => body)

/** A project of a client made for it. */
export const newClientProject = (key: string, name = "Wedding") =>
  Effect.flatMap(newClient(key), (client) => newProject(key, client.id, name))

/**
 * A numbered resource created 20 times at once in each of two organizations (40 requests together): each
 * organization gets exactly `PREFIX-0001` … `PREFIX-0020`, no gap and no duplicate, and lists them. Returns
 * the organizations and their clients for the test's own checks of what comes next.
 */
export const numberedConcurrently = (options: {
  readonly path: string
  readonly body: (clientId: string) => object
  readonly field: string
  readonly prefix: string
}) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const a = yield* server.organization()
    const b = yield* server.organization()
    const clientA = yield* newClient(a.apiKey)
    const clientB = yield* newClient(b.apiKey)
    const create = (key: string, clientId: string) => post(options.path, options.body(clientId), { key })
    const results = yield* Effect.all(
      Array.from({ length: 40 }, (_, i) => i % 2 === 0 ? create(a.apiKey, clientA.id) : create(b.apiKey, clientB.id)),
      { concurrency: "unbounded" }
    )
    for (const res of results) expect(res.status).toBe(201)
    const expected = Array.from({ length: 20 }, (_, i) => `${options.prefix}-${String(i + 1).padStart(4, "0")}`)
    const numbersOf = (clientId: string) => results.filter((r) => r.body.clientId === clientId).map((r) => r.body[options.field]).sort()
    expect(numbersOf(clientA.id)).toEqual(expected)
    expect(numbersOf(clientB.id)).toEqual(expected)
    const listed = (yield* get(`${options.path}?pageSize=100`, { key: a.apiKey })).body
    expect(listed.pagination.total).toBe(20)
    expect(listed.data.map((record: Record<string, unknown>) => record[options.field]).sort()).toEqual(expected)
    return { server, a, b, clientA, clientB }
  })
