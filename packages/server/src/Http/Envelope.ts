import {
  type ApiError,
  CurrentRequestId,
  errorCodeOf,
  InternalError,
  InvalidRequest,
  isCanonicalPath,
  jsonDepth,
  MAX_JSON_DEPTH,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  toEnvelope,
  type ValidationIssue
} from "@bizops/domain"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { ByteSize, Cause, Clock, Context, Effect, Option, Predicate, SchemaIssue } from "effect"
import { HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { Readable } from "node:stream"
import { CurrentRequestState, freshRequestState } from "./RequestState.js"
import { requestIdFrom } from "./RequestId.js"
import type { MatchedRoute, RouteTable } from "./Routes.js"

/**
 * Whether every request is logged when it is answered: one line at Info level, `GET /api/v1/clients 200
 * 3 ms`, annotated with method, path (without the query), status, duration and request id (one JSON
 * object per line with `LOG_FORMAT=json`). The service's main turns it on (`LOG_REQUESTS`, on by
 * default); tests and the benchmark leave it off.
 */
export const LogRequests = Context.Reference<boolean>("@bizops/server/LogRequests", { defaultValue: () => false })

/** The largest request body we read: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024

const MAX_BODY_SIZE = ByteSize.bytes(MAX_BODY_BYTES)

const API_ERROR_TAGS = new Set([
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "MethodNotAllowed",
  "InvalidRequest",
  "RateLimited",
  "Conflict",
  "RequestInProgress",
  "IdempotencyKeyReused",
  "Gone",
  "PayloadTooLarge",
  "ClientError",
  "InternalError"
])

const isApiError = (u: unknown): u is ApiError =>
  Predicate.hasProperty(u, "_tag") && typeof u._tag === "string" && API_ERROR_TAGS.has(u._tag) &&
  Predicate.hasProperty(u, "message")

/** An error as the envelope, with its status. */
export const errorResponse = (error: ApiError, requestId: string, headers?: Record<string, string>) => {
  const { code, status } = errorCodeOf(error)
  return HttpServerResponse.jsonUnsafe(toEnvelope(code, error, requestId), { status, ...(headers ? { headers } : {}) })
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Whether a payload failed as a whole for its type (a string, an array or null where an object is
 * expected): a type mismatch at the root, not below it. The builder decodes a payload through a union
 * of the endpoint's payload schemas, so the mismatch is a union's with no member left.
 */
const isRootTypeMismatch = (issue: SchemaIssue.Issue): boolean =>
  issue._tag === "InvalidType" || (issue._tag === "AnyOf" && issue.issues.length === 0) ||
  (issue._tag === "Encoding" && isRootTypeMismatch(issue.issue))

/** The builder's answer for a payload that is not JSON at all (before any schema ran). */
const isNotJson = (issue: SchemaIssue.Issue): boolean =>
  issue._tag === "InvalidValue" && issue.annotations?.message === "Expected a valid JSON body"

/**
 * Every problem of a value a schema refused, each with its path, one per path: a union (an optional
 * field, a nullable one) may report one issue per member, and the first says it. The API's validation
 * errors and the operator imports' issues both say them so.
 */
export const issuesOf = (issue: SchemaIssue.Issue): Array<ValidationIssue> => {
  const seen = new Set<string>()
  const issues: Array<ValidationIssue> = []
  for (const formatted of formatIssues(issue).issues) {
    const path = (formatted.path ?? []).map((p) => {
      const key = typeof p === "object" ? p.key : p
      return typeof key === "number" ? key : String(key)
    })
    const key = JSON.stringify(path)
    if (seen.has(key)) continue
    seen.add(key)
    issues.push({ path, message: formatted.message })
  }
  return issues
}

/**
 * A request that did not decode (its query, headers or body), as our validation error: 400
 * invalid_request with every issue (the path where it is, and what is wrong there).
 */
export const validationError = (error: HttpApiError.HttpApiSchemaError): InvalidRequest => {
  const issue = error.cause.issue
  if (error.kind === "Payload" && isNotJson(issue)) return new InvalidRequest({ message: "The request body is not valid JSON" })
  const wholeBody = error.kind === "Payload" && isRootTypeMismatch(issue)
  // The body as a whole of the wrong type: say so, rather than print the schema's type.
  const issues = issuesOf(issue).map(({ message, path }) => ({
    path,
    message: wholeBody && path.length === 0 ? "the body must be a JSON object" : message
  }))
  const first = issues[0]
  const message = first === undefined
    ? "The request is not valid"
    : first.path.length > 0
    ? `${first.path.join(".")}: ${first.message}`
    : first.message
  return new InvalidRequest({ message, details: { code: "invalid_payload", issues } })
}

const pathnameOf = (request: HttpServerRequest.HttpServerRequest) => {
  const q = request.url.indexOf("?")
  return q === -1 ? request.url : request.url.slice(0, q)
}

/** Bodies up to this size are read and dropped before a refusal, so that the client sees the answer. */
const DRAIN_LIMIT = 16 * MAX_BODY_BYTES

/**
 * Reads and drops what is left of a request body that we refuse (too large, wrong type): a client that
 * is still sending would otherwise have its connection reset before it reads our answer. Past
 * DRAIN_LIMIT bytes it stops reading, and the answer closes the connection. (A body read past the
 * limit is not destroyed by the Node server of Effect 4, which drains it; this only waits for its end.)
 */
const drainBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.callback<void>((resume) => {
    const incoming: Readable & { readonly complete: boolean } = NodeHttpServerRequest.toIncomingMessage(request)
    const length = Number(request.headers["content-length"] ?? "0")
    if (incoming.complete || incoming.destroyed || !(length <= DRAIN_LIMIT)) return resume(Effect.void)
    let drained = 0
    incoming.removeAllListeners("data")
    incoming.on("data", (chunk: Buffer) => {
      drained += chunk.length
      if (drained > DRAIN_LIMIT) {
        incoming.pause()
        resume(Effect.void)
      }
    })
    incoming.once("end", () => resume(Effect.void))
    incoming.once("error", () => resume(Effect.void))
    incoming.resume()
  })

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  new NotFound({ message: `No route for ${request.method} ${pathnameOf(request)}` })

/**
 * Checks done before the handler, keyed off the route the path matches: a path not spelled canonically
 * is 404; a body over 1 MiB is 413; a JSON endpoint's body that is not JSON by its Content-Type is 400.
 */
const precheck = (request: HttpServerRequest.HttpServerRequest, route: MatchedRoute | undefined): Option.Option<ApiError> => {
  if (!isCanonicalPath(pathnameOf(request))) return Option.some(notFound(request))
  if (!hasBody(request.method)) return Option.none()
  const length = Number(request.headers["content-length"] ?? "0")
  if (length > MAX_BODY_BYTES) {
    return Option.some(new PayloadTooLarge({ message: `The request body is larger than ${MAX_BODY_BYTES} bytes` }))
  }
  // The OAuth endpoints (/api/auth, /.well-known) take forms; only the JSON API insists on JSON.
  if (route === undefined || !route.api) return Option.none()
  const contentType = request.headers["content-type"]
  if (contentType !== undefined && length > 0 && !contentType.toLowerCase().includes("application/json")) {
    return Option.some(new InvalidRequest({ message: `Content-Type must be application/json, not ${contentType}` }))
  }
  return Option.none()
}

/**
 * A JSON endpoint's body nesting deeper than MAX_JSON_DEPTH is 400, checked on the text before it is
 * parsed or decoded (deep values overflow the stack of recursive code: decoding, error formatting).
 */
const checkBody = (request: HttpServerRequest.HttpServerRequest, route: MatchedRoute | undefined) =>
  route === undefined || !route.api || !hasBody(request.method)
    ? Effect.void
    : Effect.flatMap(request.text, (text) =>
      jsonDepth(text) > MAX_JSON_DEPTH
        ? Effect.fail(new InvalidRequest({ message: `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }))
        : Effect.void)

/**
 * The outermost middleware: gives every request its id (`X-Request-Id`, echoed in `error.requestId`)
 * and its fresh state (Http/RequestState.ts), answers paths not spelled canonically with 404, limits
 * bodies to 1 MiB and their nesting to MAX_JSON_DEPTH, and answers every failure that the HttpApi did
 * not with the error envelope: unknown routes (404), wrong methods (405 with Allow), requests that do
 * not decode (400 with every issue; 404 for a malformed id in the path), malformed JSON and unreadable
 * bodies (400), oversized bodies (413, also when sent chunked), defects (500, without internals).
 * Effect 4's HttpApi raises a request that does not decode as a defect after the endpoint's
 * middleware (it would answer an empty 400), so it arrives here with the rest.
 */
export const errorEnvelope = (routes: RouteTable) =>
<E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = yield* Clock.currentTimeNanos
    const requestId = requestIdFrom(request.headers["x-request-id"])
    const route = routes.match(request.method, pathnameOf(request))
    const refused = precheck(request, route)
    if (Option.isSome(refused)) {
      yield* drainBody(request)
      const refusal = errorResponse(refused.value, requestId, { "x-request-id": requestId, connection: "close" })
      if (yield* LogRequests) yield* logRequest(request, refusal.status, started, requestId)
      return refusal
    }
    const response = yield* Effect.andThen(checkBody(request, route), app).pipe(
      Effect.map((response) =>
        // A JSON endpoint that reads no JSON: the builder answers a body type it does not decode with
        // an empty 415 (an empty body with another Content-Type; precheck answers a non-empty one).
        response.status === 415 && route !== undefined && route.api
          ? errorResponse(
            new InvalidRequest({ message: `Content-Type must be application/json, not ${request.headers["content-type"]}` }),
            requestId
          )
          : response
      ),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
        return Option.match(answer(Cause.squash(cause), request, routes, requestId), {
          onSome: (response) =>
            response.status === 413
              ? Effect.as(drainBody(request), HttpServerResponse.setHeader(response, "connection", "close"))
              : Effect.succeed(response),
          onNone: () =>
            Effect.as(
              Effect.logError("Unhandled failure", cause).pipe(Effect.annotateLogs("requestId", requestId)),
              errorResponse(
                new InternalError({ message: "Something went wrong on our side; the request id identifies it" }),
                requestId
              )
            )
        })
      }),
      Effect.provideService(CurrentRequestId, requestId),
      Effect.provideService(CurrentRequestState, freshRequestState()),
      // Also limits a chunked body, which announces no length: reading it fails past the limit.
      Effect.provideService(HttpIncomingMessage.MaxBodySize, MAX_BODY_SIZE)
    )
    if (yield* LogRequests) yield* logRequest(request, response.status, started, requestId)
    // A replayed answer keeps the request id it was first given.
    return response.headers["x-request-id"] === undefined ? HttpServerResponse.setHeader(response, "x-request-id", requestId) : response
  })

/** The request's log line (`LogRequests`). The query is left out: it may carry what a log must not keep. */
const logRequest = (request: HttpServerRequest.HttpServerRequest, status: number, started: bigint, requestId: string) =>
  Effect.flatMap(Clock.currentTimeNanos, (now) => {
    const path = pathnameOf(request)
    const durationMs = Math.round(Number(now - started) / 1e4) / 100
    return Effect.logInfo(`${request.method} ${path} ${status} ${durationMs} ms`).pipe(
      Effect.annotateLogs({ method: request.method, path, status, durationMs, requestId })
    )
  })

const answer = (
  error: unknown,
  request: HttpServerRequest.HttpServerRequest,
  routes: RouteTable,
  requestId: string
): Option.Option<HttpServerResponse.HttpServerResponse> => {
  if (isApiError(error)) return Option.some(errorResponse(error, requestId))
  if (HttpApiError.HttpApiSchemaError.is(error)) {
    // A path parameter that does not decode is a malformed id: no such record.
    if (error.kind === "Params") {
      return Option.some(errorResponse(new NotFound({ message: "No such record: the id in the path is not a valid id" }), requestId))
    }
    // "Body" and "ResponseHeaders" are our own answers that did not encode: a defect (500).
    if (error.kind === "Query" || error.kind === "Headers" || error.kind === "Payload") {
      return Option.some(errorResponse(validationError(error), requestId))
    }
    return Option.none()
  }
  if (HttpServerError.isHttpServerError(error)) {
    const reason = error.reason
    if (reason._tag === "RouteNotFound") {
      const pathname = pathnameOf(request)
      const allowed = routes.allowedMethods(pathname)
      if (allowed.length > 0 && !routes.hasMalformedId(pathname)) {
        return Option.some(errorResponse(
          new MethodNotAllowed({ message: `${request.method} is not allowed here; use ${allowed.join(", ")}` }),
          requestId,
          { allow: allowed.join(", ") }
        ))
      }
      return Option.some(errorResponse(notFound(request), requestId))
    }
    if (reason._tag === "RequestParseError") {
      return Option.some(errorResponse(
        reason.reason === "BodyTooLarge"
          ? new PayloadTooLarge({ message: `The request body is larger than ${MAX_BODY_BYTES} bytes` })
          : new InvalidRequest({ message: "The request body is not valid JSON" }),
        requestId
      ))
    }
  }
  return Option.none()
}
