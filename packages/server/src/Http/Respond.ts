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
