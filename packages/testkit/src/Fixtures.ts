import { Effect } from "effect"
import { expect } from "vitest"
import { get, post } from "./Http.js"

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
