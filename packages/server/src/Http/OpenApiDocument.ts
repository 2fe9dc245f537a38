import { Api, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "@bizops/domain"
import { eventCatalogEntries } from "@bizops/webhooks"
import { OpenApi } from "effect/http-api"

/**
 * Components keep their names without Effect 4's `Encoded` suffix (`Client`, not `ClientEncoded`), as
 * the webhook catalog's payload schemas do. One object, so that `fromApi` computes the document once.
 */
const options: OpenApi.FromApiOptions = { referencePolicy: ({ identifier }) => identifier?.replace(/Encoded$/, "") }

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value)

/**
 * The query parameters every list takes, as what they are (the generated document has their wire form,
 * a string with a pattern): their types, bounds and defaults.
 */
const LIST_PARAMETERS: Record<string, { readonly description: string; readonly schema: Json; readonly example?: string }> = {
  page: { description: "The page, from 1.", schema: { type: "integer", minimum: 1, default: 1 } },
  pageSize: {
    description: `Records per page, 1 to ${MAX_PAGE_SIZE}.`,
    schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }
  },
  updatedSince: {
    description: "Only records changed at or after this ISO 8601 date-time (`updatedAt >= updatedSince`).",
    schema: { type: "string", format: "date-time" },
    example: "2026-01-01T00:00:00Z"
  }
}

/**
 * An example for a filter: tools that show a request with every parameter filled (the docs page does)
 * send it as shown, and an empty value is 400 (the contract: a filter with a bad value).
 */
const filterExample = (schema: unknown): unknown =>
  !isObject(schema)
    ? undefined
    : schema.format === "uuid"
    ? "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"
    : schema.format === "date" || schema.$ref === "#/components/schemas/Date"
    ? "2026-01-01"
    : Array.isArray(schema.enum)
    ? schema.enum[0]
    : undefined

/**
 * `Idempotency-Key` on a POST or PATCH, with an example of its own per operation (the docs page sends the
 * example as it is: an empty key is refused, and one key shared by two operations would be reused).
 */
const idempotencyKey = (operationId: unknown) => ({
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a POST or PATCH safe to retry: the same key with the same body within 24 hours replays the first response (with `Idempotent-Replayed: true`); with another body it is 409 idempotency_key_reused, and while the first is running 409 request_in_progress. Per credential.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
  example: `${typeof operationId === "string" ? operationId : "request"}-0001`
})

/** The headers the server reads and sends, declared once (section 8 and the contract). */
const PARAMETERS: Json = {
  RequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description: "Your id for this request (1 to 200 printable ASCII characters), echoed in `X-Request-Id` and `error.requestId`; one is made when absent.",
    schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,200}$" }
  }
}

const HEADERS: Json = {
  "X-Request-Id": { description: "The request's id (yours, or one made for it); also `error.requestId`.", schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "Requests the credential may make per hourly window.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer", minimum: 0 } },
  "X-RateLimit-Reset": { description: "When the window ends, in seconds since the Unix epoch.", schema: { type: "integer" } },
  RateLimit: { description: "The same as an IETF RateLimit field: `\"hourly\";r=<remaining>;t=<seconds to reset>`.", schema: { type: "string" } },
  "RateLimit-Policy": { description: "The IETF RateLimit-Policy field: `\"hourly\";q=<limit>;w=3600`.", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 1 } },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored response of an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] }
  }
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"]

/**
 * An operation as served: its list parameters typed, its headers declared (the request id everywhere;
 * the rate limit's on every answer to a credential; Retry-After on 429; Idempotency-Key and
 * Idempotent-Replayed on POST and PATCH).
 */
const completeOperation = (method: string, operation: Json): Json => {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : []
  const typed = parameters.map((parameter: unknown) => {
    if (!isObject(parameter) || parameter.in !== "query" || typeof parameter.name !== "string") return parameter
    const known = LIST_PARAMETERS[parameter.name]
    if (known !== undefined) return { ...parameter, ...known }
    const schema = parameter.schema
    // A boolean filter's wire form is "true" or "false".
    if (isObject(schema) && Array.isArray(schema.enum) && schema.enum.length === 2 && schema.enum.includes("true") && schema.enum.includes("false")) {
      return { ...parameter, schema: { type: "boolean" }, example: false }
    }
    const example = filterExample(schema)
    return example === undefined ? parameter : { ...parameter, example }
  })
  const writes = method === "post" || method === "patch"
  const authenticated = Array.isArray(operation.security) && operation.security.length > 0
  const responses = isObject(operation.responses) ? operation.responses : {}
  const withHeaders = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if (!isObject(response)) return [status, response]
      const names = [
        "X-Request-Id",
        ...(authenticated && status !== "401" ? RATE_LIMIT_HEADERS : []),
        ...(status === "429" ? ["Retry-After"] : []),
        ...(writes && status.startsWith("2") ? ["Idempotent-Replayed"] : [])
      ]
      return [status, { ...response, headers: Object.fromEntries(names.map((name) => [name, header(name)])) }]
    })
  )
  return {
    ...operation,
    parameters: [
      ...typed,
      { $ref: "#/components/parameters/RequestId" },
      ...(writes ? [idempotencyKey(operation.operationId)] : [])
    ],
    responses: withHeaders
  }
}

/** Every schema reachable from `node` through `$ref`s to components. */
const reachable = (node: unknown, schemas: Json, found = new Set<string>()): Set<string> => {
  if (Array.isArray(node)) {
    for (const item of node) reachable(item, schemas, found)
  } else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        const name = value.slice("#/components/schemas/".length)
        if (!found.has(name)) {
          found.add(name)
          reachable(schemas[name], schemas, found)
        }
      } else reachable(value, schemas, found)
    }
  }
  return found
}

/**
 * A response schema accepts fields it does not know (section 9, rule 3: a client must tolerate new
 * fields, so a client generated from this document must not break on the next additive release).
 */
const open = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(open)
  if (!isObject(node)) return node
  return Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === "additionalProperties" && value === false)).map(([key, value]) => [key, open(value)]))
}

/**
 * The OpenAPI document: generated from the HttpApi definition, completed with what the server adds
 * around the HttpApi (headers, the list parameters' types), with open response schemas, plus the
 * outbound events of the webhooks package's catalog as OpenAPI 3.1 `webhooks` (the catalog is their one
 * source).
 */
export const openApiDocument = (): Json => {
  const spec = OpenApi.fromApi(Api, options)
  const schemas: Json = { ...spec.components.schemas }
  // A payload's JSON Schema keeps its definitions under $defs; in the document they are components.
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist)
    if (node === null || typeof node !== "object") return node
    const out: Json = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "$schema") continue
      if (key === "$defs" && value !== null && typeof value === "object") {
        for (const [name, definition] of Object.entries(value)) if (!(name in schemas)) schemas[name] = hoist(definition)
        continue
      }
      out[key] = key === "$ref" && typeof value === "string" ? value.replace("#/$defs/", "#/components/schemas/") : hoist(value)
    }
    return out
  }
  const webhooks = Object.fromEntries(
    eventCatalogEntries().map((event) => [
      event.name,
      {
        post: {
          operationId: `webhook.${event.name}`,
          summary: event.name,
          description: event.description,
          tags: ["Webhook events"],
          requestBody: { required: true, content: { "application/json": { schema: open(hoist(event.payloadSchema)) } } },
          responses: { "2XX": { description: "Received. Anything else (or no answer in 15 s) is retried." } }
        }
      }
    ])
  )
  const paths = Object.fromEntries(
    Object.entries(spec.paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, isObject(operation) ? completeOperation(method, operation) : operation]))
    ])
  )
  // Request bodies stay strict (an unknown field is refused); everything else is what the server sends.
  const requests = reachable(
    Object.values(paths).flatMap((item) => isObject(item) ? Object.values(item).map((operation) => isObject(operation) ? [operation.requestBody, operation.parameters] : []) : []),
    schemas
  )
  const openSchemas = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, requests.has(name) ? schema : open(schema)]))
  return {
    ...spec,
    paths: reopenResponses(paths),
    components: { ...spec.components, schemas: openSchemas, parameters: PARAMETERS, headers: HEADERS },
    tags: [
      ...spec.tags,
      { name: "Webhook events", description: "What the API posts to a subscription's URL, signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`)." }
    ],
    webhooks
  }
}

/** Inline response schemas of the paths, opened like the components (request bodies untouched). */
const reopenResponses = (paths: Json): Json =>
  Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      isObject(item)
        ? Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, isObject(operation) ? { ...operation, responses: open(operation.responses) } : operation]))
        : item
    ])
  )
