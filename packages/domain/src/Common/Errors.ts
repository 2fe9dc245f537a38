import { Context, Effect, Schema, SchemaGetter } from "effect"

export const ErrorCode = Schema.Literals([
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "invalid_request",
  "rate_limited",
  "conflict",
  "request_in_progress",
  "idempotency_key_reused",
  "gone",
  "payload_too_large",
  "client_error",
  "internal_error"
])
export type ErrorCode = typeof ErrorCode.Type

export const DetailCode = Schema.Literals([
  "archived_record_read_only",
  "paused_transaction_window_locked",
  "record_has_dependents",
  "duplicate_record",
  "record_immutable",
  "quota_exceeded",
  "invalid_payload",
  "global_mode_has_assignments",
  "unsupported_file_type",
  "file_too_large",
  "cross_organization",
  "linked_record_not_found",
  "rate_limited",
  "revenue_on_internal_project",
  "number_series_unlocked",
  "invoice_not_deletable",
  "sale_not_deletable",
  "tax_category_default",
  "tax_category_referenced",
  "recipe_price_propagation_failed",
  "price_history_head_mismatch",
  "price_history_not_derived",
  "time_entry_already_billed",
  "charge_period_already_billed",
  "owner_immutable",
  "payment_client_mismatch",
  "payment_target_not_collectible",
  "currency_locked",
  "unknown_assignment_id"
])
export type DetailCode = typeof DetailCode.Type

/** One validation problem: where in the input, and what is wrong. */
export const ValidationIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
}).annotate({ identifier: "ValidationIssue", description: "One problem of a request: where (the path of keys and indexes) and what is wrong." })
export type ValidationIssue = typeof ValidationIssue.Type

/**
 * `error.details`: a detail code, with what it names: `issues` (invalid_payload: every problem of the
 * body), `field` (the field that names a missing record), `fields` (the fields a record cannot change),
 * and any further properties a later version adds.
 */
export const ErrorDetails = Schema.StructWithRest(
  Schema.Struct({
    code: DetailCode,
    issues: Schema.optionalKey(Schema.Array(ValidationIssue)),
    field: Schema.optionalKey(Schema.String),
    fields: Schema.optionalKey(Schema.Array(Schema.String))
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "ErrorDetails" })
export type ErrorDetails = typeof ErrorDetails.Type

/**
 * The request id of the request being answered. The server sets it for each request; an error's
 * envelope reads it when it is encoded, so `error.requestId` always equals the `X-Request-Id` header.
 */
export const CurrentRequestId = Context.Reference<string>("@bizops/domain/CurrentRequestId", { defaultValue: () => "" })

const errorFields = {
  message: Schema.String,
  details: Schema.optional(ErrorDetails),
  requestId: Schema.optional(Schema.String)
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", errorFields) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", errorFields) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", errorFields) {}
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", errorFields) {}
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", errorFields) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", errorFields) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", errorFields) {}
export class RequestInProgress extends Schema.TaggedError<RequestInProgress>()("RequestInProgress", errorFields) {}
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", errorFields) {}
export class Gone extends Schema.TaggedError<Gone>()("Gone", errorFields) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", errorFields) {}
export class ClientError extends Schema.TaggedError<ClientError>()("ClientError", errorFields) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", errorFields) {}

export type ApiError =
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | InvalidRequest
  | RateLimited
  | Conflict
  | RequestInProgress
  | IdempotencyKeyReused
  | Gone
  | PayloadTooLarge
  | ClientError
  | InternalError

/** The wire form of every error: section 7's envelope. */
export const ErrorEnvelope = <C extends ErrorCode>(code: C) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: Schema.String,
      requestId: Schema.String,
      details: Schema.optionalKey(ErrorDetails)
    })
  })

export type ErrorEnvelope<C extends ErrorCode = ErrorCode> = {
  readonly error: {
    readonly code: C
    readonly message: string
    readonly requestId: string
    readonly details?: ErrorDetails
  }
}

type ErrorClass<E> = Schema.Codec<E, unknown> & {
  new(props: { readonly message: string; readonly details?: ErrorDetails; readonly requestId?: string }): E
}

/** Builds the envelope body of an error, reading the request id of the current request. */
export const toEnvelope = <C extends ErrorCode>(
  code: C,
  error: { readonly message: string; readonly details?: ErrorDetails | undefined },
  requestId: string
): ErrorEnvelope<C> => ({
  error: {
    code,
    message: error.message,
    requestId,
    ...(error.details === undefined ? {} : { details: error.details })
  }
})

const envelopeOf = <E extends { readonly message: string; readonly details?: ErrorDetails | undefined }, C extends ErrorCode>(
  cls: ErrorClass<E>,
  code: C,
  status: number,
  identifier: string
) =>
  ErrorEnvelope(code).annotate({ identifier, title: identifier }).pipe(
    Schema.decodeTo(Schema.toType(cls), {
      decode: SchemaGetter.transform((envelope) =>
        new cls({
          message: envelope.error.message,
          requestId: envelope.error.requestId,
          ...(envelope.error.details === undefined ? {} : { details: envelope.error.details })
        })
      ),
      encode: SchemaGetter.transformEffect((error: E) =>
        Effect.map(Effect.service(CurrentRequestId), (requestId) => toEnvelope(code, error, requestId))
      )
    }),
    Schema.annotate({ httpApiStatus: status })
  )

/** The response schemas of each error, with their HTTP status (the contract's status table). */
export const UnauthorizedResponse = envelopeOf(Unauthorized, "unauthorized", 401, "UnauthorizedError")
export const ForbiddenResponse = envelopeOf(Forbidden, "forbidden", 403, "ForbiddenError")
export const NotFoundResponse = envelopeOf(NotFound, "not_found", 404, "NotFoundError")
export const MethodNotAllowedResponse = envelopeOf(MethodNotAllowed, "method_not_allowed", 405, "MethodNotAllowedError")
export const InvalidRequestResponse = envelopeOf(InvalidRequest, "invalid_request", 400, "InvalidRequestError")
export const RateLimitedResponse = envelopeOf(RateLimited, "rate_limited", 429, "RateLimitedError")
export const ConflictResponse = envelopeOf(Conflict, "conflict", 409, "ConflictError")
export const RequestInProgressResponse = envelopeOf(RequestInProgress, "request_in_progress", 409, "RequestInProgressError")
export const IdempotencyKeyReusedResponse = envelopeOf(IdempotencyKeyReused, "idempotency_key_reused", 409, "IdempotencyKeyReusedError")
export const GoneResponse = envelopeOf(Gone, "gone", 410, "GoneError")
export const PayloadTooLargeResponse = envelopeOf(PayloadTooLarge, "payload_too_large", 413, "PayloadTooLargeError")
export const ClientErrorResponse = envelopeOf(ClientError, "client_error", 400, "ClientErrorError")
export const InternalErrorResponse = envelopeOf(InternalError, "internal_error", 500, "InternalErrorError")

/**
 * The error responses each kind of endpoint can give, so that an operation lists what it can produce (and
 * a typed client decodes each as a typed error). The authentication middleware adds its own (401, 403,
 * 429) to every endpoint behind it. Every request can be malformed (400) or meet a failure (500).
 */
const EveryRequestErrors = [InvalidRequestResponse, InternalErrorResponse] as const

/** A body's errors: too large (413), and an Idempotency-Key reused with another body or still running (409). */
const BodyErrors = [PayloadTooLargeResponse, IdempotencyKeyReusedResponse, RequestInProgressResponse] as const

/** `GET /<resources>`: a list (an unknown filter value is 400, never 404). */
export const ListErrors = EveryRequestErrors
/** `GET /<resources>/:id` and other reads of one record: 404 when the organization has no such record. */
export const ReadErrors = [...EveryRequestErrors, NotFoundResponse] as const
/**
 * `POST` and `PATCH`: 409 for a rule of the resource (a duplicate, a quota, an immutable record) and for
 * the Idempotency-Key, 404 for the record changed or a record the body names that must exist.
 */
export const CreateErrors = [...EveryRequestErrors, NotFoundResponse, ConflictResponse, ...BodyErrors] as const
export const UpdateErrors = CreateErrors
/** `DELETE`: 404, or 409 while other records depend on it (or it may no longer be deleted). */
export const DeleteErrors = [...EveryRequestErrors, NotFoundResponse, ConflictResponse] as const
/** A `POST` on a record without a body (`/webhooks/:id/test`): 404, 409 for its Idempotency-Key. */
export const ActionErrors = [...EveryRequestErrors, NotFoundResponse, ConflictResponse, IdempotencyKeyReusedResponse, RequestInProgressResponse] as const

/** The code and status of each error, for the places that answer outside the HttpApi router. */
export const errorCodeOf = (error: ApiError): { readonly code: ErrorCode; readonly status: number } => {
  switch (error._tag) {
    case "Unauthorized": return { code: "unauthorized", status: 401 }
    case "Forbidden": return { code: "forbidden", status: 403 }
    case "NotFound": return { code: "not_found", status: 404 }
    case "MethodNotAllowed": return { code: "method_not_allowed", status: 405 }
    case "InvalidRequest": return { code: "invalid_request", status: 400 }
    case "RateLimited": return { code: "rate_limited", status: 429 }
    case "Conflict": return { code: "conflict", status: 409 }
    case "RequestInProgress": return { code: "request_in_progress", status: 409 }
    case "IdempotencyKeyReused": return { code: "idempotency_key_reused", status: 409 }
    case "Gone": return { code: "gone", status: 410 }
    case "PayloadTooLarge": return { code: "payload_too_large", status: 413 }
    case "ClientError": return { code: "client_error", status: 400 }
    case "InternalError": return { code: "internal_error", status: 500 }
  }
}

/** A body that names a record the caller's organization does not have. */
export const linkedRecordNotFound = (field: string, what: string) =>
  new InvalidRequest({
    message: `${field} does not name a ${what} of this organization`,
    details: { code: "linked_record_not_found", field }
  })

export const notFound = (what: string) => new NotFound({ message: `No such ${what}` })

/** A body that is well-formed but wrong at one place: 400 invalid_payload with the path and the reason. */
export const invalidPayload = (path: ReadonlyArray<string | number>, message: string) =>
  new InvalidRequest({
    message: `${path.join(".")}: ${message}`,
    details: { code: "invalid_payload", issues: [{ path: [...path], message }] }
  })
