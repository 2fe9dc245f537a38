/**
 * One refusal type for every rule of the domain, and the one function that turns it into the API's error.
 *
 * A rule that says no returns `Result.fail(refusal)`: what kind of no (its HTTP meaning), its detail
 * code, the field or path it is about, and the reason. The server never builds the error of a rule's
 * refusal itself: it calls `refusalError` (or `orRefuse` on the rule's Result), so that every refusal
 * of the same kind is answered the same way.
 *
 * | kind        | detail                         | answer                                                                   |
 * |-------------|--------------------------------|--------------------------------------------------------------------------|
 * | `invalid`   | `invalid_payload` with a path  | 400 invalid_request, `"<path>: <message>"`, `details.issues: [{path, message}]` |
 * | `invalid`   | another code                   | 400 invalid_request, the message, `details: {code, field?}` (field: the path joined by ".") |
 * | `conflict`  | a code or none                 | 409 conflict, the message, `details: {code}` when there is one            |
 * | `not_found` | none                           | 404 not_found, the message                                               |
 */
import { Effect, Result } from "effect"
import { Conflict, type DetailCode, InvalidRequest, invalidPayload, NotFound } from "./Errors.js"

/** The HTTP meaning of a refusal: `invalid` is 400 (never acceptable), `conflict` 409 (not from this state), `not_found` 404. */
export type RefusalKind = "invalid" | "conflict" | "not_found"

export interface Refusal {
  readonly _tag: "Refusal"
  readonly kind: RefusalKind
  /** `error.details.code`; undefined only for a conflict or a not-found that carries none. */
  readonly detail: DetailCode | undefined
  /** Where in the request the refusal is about (a field is a path of one), or undefined. */
  readonly path: ReadonlyArray<string | number> | undefined
  /** The reason: for `invalid_payload` it is relative to the path ("must be ..."), otherwise a sentence. */
  readonly message: string
}

const make = (
  kind: RefusalKind,
  detail: DetailCode | undefined,
  path: ReadonlyArray<string | number> | undefined,
  message: string
): Refusal => ({ _tag: "Refusal", kind, detail, path, message })

export const Refusal = {
  /** 400 invalid_payload at `path`: the request is wrong there, whatever the state. */
  invalid: (path: ReadonlyArray<string | number>, message: string): Refusal => make("invalid", "invalid_payload", path, message),
  /** 400 with its own detail code about one field (`payment_client_mismatch`, `linked_record_not_found`, ...). */
  invalidField: (detail: DetailCode, field: string, message: string): Refusal => make("invalid", detail, [field], message),
  /** 409: not from the record's current state. `path` names what it is about (the answer does not carry it). */
  conflict: (message: string, detail?: DetailCode, path?: ReadonlyArray<string | number>): Refusal =>
    make("conflict", detail, path, message),
  /** 404: there is no such record. */
  notFound: (message: string): Refusal => make("not_found", undefined, undefined, message)
} as const

/** A refusal as a Result, for rules that read better with `return refuse(...)`. */
export const refuse = (refusal: Refusal): Result.Result<never, Refusal> => Result.fail(refusal)

/** The HTTP status of a refusal. */
export const refusalStatus = (refusal: Refusal): 400 | 404 | 409 =>
  refusal.kind === "invalid" ? 400 : refusal.kind === "conflict" ? 409 : 404

/** The one mapping from a refusal to the API's error (see the table above). */
export const refusalError = (refusal: Refusal): InvalidRequest | Conflict | NotFound => {
  switch (refusal.kind) {
    case "invalid":
      if (refusal.path !== undefined && (refusal.detail === undefined || refusal.detail === "invalid_payload")) {
        return invalidPayload(refusal.path, refusal.message)
      }
      return new InvalidRequest({
        message: refusal.message,
        details: {
          code: refusal.detail ?? "invalid_payload",
          ...(refusal.path === undefined ? {} : { field: refusal.path.join(".") })
        }
      })
    case "conflict":
      return new Conflict({ message: refusal.message, ...(refusal.detail === undefined ? {} : { details: { code: refusal.detail } }) })
    case "not_found":
      return new NotFound({ message: refusal.message })
  }
}

/** A rule's Result as an effect: its success, or the API error of its refusal. */
export const orRefuse = <A>(result: Result.Result<A, Refusal>): Effect.Effect<A, InvalidRequest | Conflict | NotFound> =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(refusalError(result.failure))
