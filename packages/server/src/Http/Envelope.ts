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
import { Cause, Effect, FiberRef, Option, Predicate } from "effect"
import { RequestRejected } from "./Idempotency.js"
import { requestIdFrom } from "./RequestId.js"
import type { MatchedRoute, RouteTable } from "./Routes.js"

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
 * Reads and drops what is left of a request body that we refuse (too large, wrong type): a client that
 * is still sending would otherwise have its connection reset before it reads our answer. Past
 * DRAIN_LIMIT bytes it stops reading, and the answer closes the connection.
 */
const drainBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.async<void>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
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

/**
 * The platform destroys a request whose body it stopped reading at the size limit, which resets the
 * connection before the client reads our 413. For this request, a destroy before the body is complete
 * leaves the stream to drainBody instead (the answer then closes the connection).
 */
const keepOpenForAnswer = (request: HttpServerRequest.HttpServerRequest) => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const destroy = incoming.destroy.bind(incoming)
  incoming.destroy = (error?: Error) => {
    if (incoming.complete || error !== undefined) return destroy(error)
    incoming.pause()
    return incoming
  }
}

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
 * The outermost middleware: gives every request its id (`X-Request-Id`, echoed in `error.requestId`),
 * answers paths not spelled canonically with 404, limits bodies to 1 MiB and their nesting to
 * MAX_JSON_DEPTH, and answers every failure that the HttpApi router did not with the error envelope:
 * unknown routes (404), wrong methods (405 with Allow), malformed JSON and unreadable bodies (400),
 * oversized bodies (413, also when sent chunked), defects (500, without internals).
 */
export const errorEnvelope = (routes: RouteTable) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdFrom(request.headers["x-request-id"])
    const route = routes.match(request.method, pathnameOf(request))
    const refused = precheck(request, route)
    if (Option.isSome(refused)) {
      yield* drainBody(request)
      return errorResponse(refused.value, requestId, { "x-request-id": requestId, connection: "close" })
    }
    if (hasBody(request.method)) keepOpenForAnswer(request)
    const response = yield* Effect.zipRight(checkBody(request, route), app).pipe(
      Effect.catchAllCause((cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
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
      return Option.some(errorResponse(notFound(request), requestId))
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
