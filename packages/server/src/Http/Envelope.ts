import {
  type HttpApp,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import {
  type ApiError,
  CurrentRequestId,
  errorCodeOf,
  InternalError,
  InvalidRequest,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  toEnvelope,
  type ValidationIssue
} from "@bizops/domain"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Cause, Effect, FiberRef, Option, Predicate } from "effect"
import { RequestRejected } from "./Idempotency.js"
import { requestIdFrom } from "./RequestId.js"
import type { RouteTable } from "./Routes.js"

/** The largest request body we read: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024

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
  return HttpServerResponse.unsafeJson(toEnvelope(code, error, requestId), { status, ...(headers ? { headers } : {}) })
}

/** A request-decode failure, as our validation error: 400 invalid_request with the issues. */
export const validationError = (error: HttpApiDecodeError): InvalidRequest => {
  const seen = new Set<string>()
  const issues: Array<ValidationIssue> = []
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)))
    const key = JSON.stringify(path)
    // A union (an optional field, a nullable one) reports one issue per member; the first says it.
    if (seen.has(key)) continue
    seen.add(key)
    // The body as a whole of the wrong type: say so, rather than print the schema's type.
    const message = path.length === 0 && issue.message.startsWith("Expected {") ? "the body must be a JSON object" : issue.message
    issues.push({ path, message })
  }
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
 * Reads and drops a request body that we refuse without reading (too large, wrong type): a client
 * that is still sending would otherwise have its connection cut before it reads our answer.
 */
const drainBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<void>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const length = Number(request.headers["content-length"] ?? "0")
    if (incoming.complete || !(length <= DRAIN_LIMIT)) return resume(Effect.void)
    incoming.once("end", () => resume(Effect.void))
    incoming.once("error", () => resume(Effect.void))
    incoming.resume()
  })

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

/**
 * Checks done before routing: a body over 1 MiB is 413, a body that is not JSON is 400.
 */
const precheck = (request: HttpServerRequest.HttpServerRequest): Option.Option<ApiError> => {
  if (!hasBody(request.method)) return Option.none()
  const length = Number(request.headers["content-length"] ?? "0")
  if (length > MAX_BODY_BYTES) {
    return Option.some(new PayloadTooLarge({ message: `The request body is larger than ${MAX_BODY_BYTES} bytes` }))
  }
  const contentType = request.headers["content-type"]
  // The OAuth endpoints (/api/auth, /.well-known) take forms; only the JSON API insists on JSON.
  if (!request.url.startsWith("/api/v1")) return Option.none()
  if (contentType !== undefined && length > 0 && !contentType.toLowerCase().includes("application/json")) {
    return Option.some(new InvalidRequest({ message: `Content-Type must be application/json, not ${contentType}` }))
  }
  return Option.none()
}

/**
 * The outermost middleware: gives every request its id (`X-Request-Id`, echoed in `error.requestId`),
 * limits bodies to 1 MiB, and answers every failure that the HttpApi router did not with the error
 * envelope: unknown routes (404), wrong methods (405 with Allow), malformed JSON and unreadable
 * bodies (400), oversized bodies (413), defects (500, without internals).
 */
export const errorEnvelope = (routes: RouteTable) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdFrom(request.headers["x-request-id"])
    const refused = precheck(request)
    if (Option.isSome(refused)) {
      yield* drainBody(request)
      return errorResponse(refused.value, requestId, { "x-request-id": requestId, connection: "close" })
    }
    const response = yield* app.pipe(
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
        return Option.match(answer(Cause.squash(cause), request, routes, requestId), {
          onSome: Effect.succeed,
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
      Effect.locally(CurrentRequestId, requestId),
      HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES))
    )
    // A replayed answer keeps the request id it was first given.
    return response.headers["x-request-id"] === undefined ? HttpServerResponse.setHeader(response, "x-request-id", requestId) : response
  })

const answer = (
  error: unknown,
  request: HttpServerRequest.HttpServerRequest,
  routes: RouteTable,
  requestId: string
): Option.Option<HttpServerResponse.HttpServerResponse> => {
  if (isApiError(error)) return Option.some(errorResponse(error, requestId))
  if (error instanceof HttpApiDecodeError) return Option.some(errorResponse(validationError(error), requestId))
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RouteNotFound") {
      const pathname = pathnameOf(request)
      const allowed = routes.allowedMethods(pathname)
      if (allowed.length > 0 && !routes.hasMalformedId(pathname)) {
        return Option.some(errorResponse(
          new MethodNotAllowed({ message: `${request.method} is not allowed here; use ${allowed.join(", ")}` }),
          requestId,
          { allow: allowed.join(", ") }
        ))
      }
      return Option.some(errorResponse(new NotFound({ message: `No route for ${request.method} ${pathname}` }), requestId))
    }
    if (error._tag === "RequestError" && error.reason === "Decode") {
      const tooLarge = Predicate.hasProperty(error.cause, "message") && error.cause.message === "maxBytes exceeded"
      return Option.some(errorResponse(
        tooLarge
          ? new PayloadTooLarge({ message: `The request body is larger than ${MAX_BODY_BYTES} bytes` })
          : new InvalidRequest({ message: "The request body is not valid JSON" }),
        requestId
      ))
    }
  }
  return Option.none()
}

/** Request-decode failures inside the router: a malformed id in the path is 404, anything else 400. */
export const decodeFailures = (routes: RouteTable) => (app: HttpApp.Default): HttpApp.Default<InvalidRequest | NotFound> =>
  Effect.catchAllCause(app, (cause) => {
    const error = Cause.squash(cause)
    if (!(error instanceof HttpApiDecodeError)) return Effect.failCause(cause)
    return Effect.zipRight(FiberRef.set(RequestRejected, true), Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      routes.hasMalformedId(pathnameOf(request))
        ? Effect.fail<InvalidRequest | NotFound>(new NotFound({ message: "No such record: the id in the path is not a valid id" }))
        : Effect.fail<InvalidRequest | NotFound>(validationError(error))))
  })
