import {
  CurrentRequestId,
  fingerprintInput,
  IDEMPOTENCY_TTL_MS,
  IdempotencyKeyReused,
  InvalidRequest,
  isReplayable,
  isValidIdempotencyKey,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  type Principal,
  RequestInProgress
} from "@bizops/domain"
import { Clock, Context, Data, Effect, Layer, Option, Result, Schedule } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { FastSql } from "../Sql/Fast.js"
import { Authenticator } from "./Authentication.js"
import type { RouteTable } from "./Routes.js"

interface StoredResponse {
  readonly fingerprint: string
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Thrown through the handler's savepoint so that its writes roll back when its answer is not a success. */
class NotASuccess extends Data.TaggedError("NotASuccess")<{ readonly response: HttpServerResponse.HttpServerResponse }> {}

const isNotASuccess = (u: unknown): u is NotASuccess => u instanceof NotASuccess

/** Another request stored an answer for the key while this one ran: this one's changes roll back. */
class LostRace extends Data.TaggedError("LostRace")<{}> {}

const pathnameOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

const bodyText = (response: HttpServerResponse.HttpServerResponse): Option.Option<{ readonly text: string; readonly contentType?: string }> => {
  const body = response.body
  switch (body._tag) {
    case "Empty":
      return Option.some({ text: "" })
    case "Uint8Array":
      // A JSON or text answer keeps the text it was made from.
      return Option.some({ text: body.text ?? new TextDecoder().decode(body.body), contentType: body.contentType })
    default:
      return Option.none()
  }
}

const replay = (stored: StoredResponse) => {
  const headers = { ...stored.headers, "idempotent-replayed": "true" }
  const contentType = stored.headers["content-type"]
  return stored.body === ""
    ? HttpServerResponse.empty({ status: stored.status, headers })
    : HttpServerResponse.text(stored.body, { status: stored.status, headers, ...(contentType ? { contentType } : {}) })
}

const makeIdempotencyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql

  const scope = (principal: Principal, key: string) => `${principal.organizationId}:${principal.credentialId}:${key}`

  /**
   * In one statement: takes the key for this transaction (false when another request holds it right
   * now) and reads its unexpired record, if any.
   */
  const claim = (principal: Principal, key: string, now: number) =>
    Effect.map(
      fast.rows<{ readonly locked: boolean } & Partial<StoredResponse>>(
        `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked, i.fingerprint, i.status, i.headers, i.body
         FROM (SELECT 1) AS one
         LEFT JOIN idempotency_keys i
           ON i.organization_id = $2 AND i.credential_id = $3 AND i.key = $4 AND i.expires_at > $5`,
        [scope(principal, key), principal.organizationId, principal.credentialId, key, new Date(now)]
      ),
      (rows) => {
        const row = rows[0]
        const stored = row?.fingerprint !== undefined && row.fingerprint !== null && row.status !== undefined &&
            row.headers !== undefined && row.body !== undefined
          ? Option.some<StoredResponse>({ fingerprint: row.fingerprint, status: row.status, headers: row.headers, body: row.body })
          : Option.none()
        return { locked: row?.locked === true, stored }
      }
    )

  const find = (principal: Principal, key: string, now: number) =>
    Effect.map(
      fast.rows<StoredResponse>(
        `SELECT fingerprint, status, headers, body FROM idempotency_keys
         WHERE organization_id = $1 AND credential_id = $2 AND key = $3 AND expires_at > $4`,
        [principal.organizationId, principal.credentialId, key, new Date(now)]
      ),
      (rows) => Option.fromNullishOr(rows[0])
    )

  /** Stores an answer; false when a live record for the key exists already (a request that won a race). */
  const save = (principal: Principal, key: string, now: number, stored: StoredResponse) =>
    Effect.map(
      fast.rows<{ readonly saved: number }>(
        `INSERT INTO idempotency_keys AS i
           (organization_id, credential_id, key, fingerprint, status, headers, body, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (organization_id, credential_id, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, headers = EXCLUDED.headers,
           body = EXCLUDED.body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE i.expires_at <= EXCLUDED.created_at
         RETURNING 1 AS saved`,
        [
          principal.organizationId,
          principal.credentialId,
          key,
          stored.fingerprint,
          stored.status,
          JSON.stringify(stored.headers),
          stored.body,
          new Date(now),
          new Date(now + IDEMPOTENCY_TTL_MS)
        ]
      ),
      (rows) => rows.length > 0
    )

  /** Removes expired records, in batches. Safe to run on every instance at once. */
  const purgeExpired = Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    let removed = 0
    for (;;) {
      const rows = yield* sql<{ readonly n: number }>`WITH gone AS (
          DELETE FROM idempotency_keys WHERE ctid IN (
            SELECT ctid FROM idempotency_keys WHERE expires_at <= ${now} LIMIT 5000)
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`
      const n = rows[0]?.n ?? 0
      removed += n
      if (n < 5000) return removed
    }
  })

  return { sql, claim, find, save, purgeExpired } as const
})

/** Idempotency records in PostgreSQL, shared by every instance. Needs the SQL client and FastSql. */
export class IdempotencyStore extends Context.Service<IdempotencyStore, Effect.Success<typeof makeIdempotencyStore>>()(
  "@bizops/server/IdempotencyStore"
) {
  static readonly layer = Layer.effect(IdempotencyStore, makeIdempotencyStore)
}

/**
 * Idempotency for every POST and PATCH of the JSON API that carries an Idempotency-Key (the route is
 * the one the path matches, as the router matches it; the envelope has refused other spellings), as one wrapper
 * around the HttpApi app (inside the error envelope, so it sees every answer as a response):
 * the key is claimed with a transaction-scoped advisory lock (a concurrent request with the same key
 * learns at once that it is running: 409 request_in_progress; a crashed process releases it with its
 * connection); a stored answer is replayed (same fingerprint) or refused (409 idempotency_key_reused);
 * otherwise the handler runs inside the same transaction, and its changes and the stored answer
 * commit together. A handler answer that is not a success rolls its own changes back (savepoint).
 */
export const makeIdempotency = (routes: RouteTable) => Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const { authenticate } = yield* Authenticator
  const sql = store.sql

  return <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E | InvalidRequest | RequestInProgress | IdempotencyKeyReused,
    R | HttpServerRequest.HttpServerRequest
  > =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = request.headers["idempotency-key"]
      const path = pathnameOf(request.url)
      const route = routes.match(request.method, path)
      if (key === undefined || (request.method !== "POST" && request.method !== "PATCH") || route === undefined || !route.api) {
        return yield* app
      }
      const authenticated = yield* Effect.result(authenticate)
      // 401, 403 and 429 are answered by the router from the same (remembered) outcome; never stored.
      if (Result.isFailure(authenticated)) return yield* app
      const principal = authenticated.success
      if (!isValidIdempotencyKey(key)) {
        return yield* Effect.fail(
          new InvalidRequest({ message: `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters` })
        )
      }
      const text = yield* Effect.result(request.text)
      // An unreadable body is answered by the router (400 or 413) and not stored.
      if (Result.isFailure(text)) return yield* app
      const fingerprint = createHash("sha256").update(fingerprintInput(request.method, path, text.success)).digest("base64url")
      const requestId = yield* Effect.service(CurrentRequestId)

      const answerStored = (
        stored: StoredResponse
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, IdempotencyKeyReused | RequestInProgress> =>
        stored.fingerprint === fingerprint ? Effect.succeed(replay(stored)) : Effect.fail(
          new IdempotencyKeyReused({
            message: "This Idempotency-Key was used with a different request (method, path or body); use a new key"
          })
        )

      return yield* Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* sql.withTransaction(
          Effect.gen(function*() {
            const { locked, stored } = yield* store.claim(principal, key, now)
            // A finished request is answered from its record, whoever holds the key right now.
            if (Option.isSome(stored)) return yield* answerStored(stored.value)
            if (!locked) {
              return yield* Effect.fail(
                new RequestInProgress({ message: "A request with this Idempotency-Key is still running; retry after it finishes" })
              )
            }
            const response = yield* sql.withTransaction(
              Effect.flatMap(app, (response) =>
                response.status >= 200 && response.status < 300 ? Effect.succeed(response) : Effect.fail(new NotASuccess({ response })))
            ).pipe(Effect.catchIf(isNotASuccess, (e) => Effect.succeed(e.response)))
            const body = bodyText(response)
            // A request that did not decode never gets here as an answer: the HttpApi raises it as a
            // defect, which rolls this transaction back and leaves it to the envelope, unstored.
            if (isReplayable(response.status, false) && Option.isSome(body)) {
              const saved = yield* store.save(principal, key, now, {
                fingerprint,
                status: response.status,
                headers: {
                  ...response.headers,
                  "x-request-id": requestId,
                  ...(body.value.contentType ? { "content-type": body.value.contentType } : {})
                },
                body: body.value.text
              })
              // The claim's snapshot predates a request that finished just before our lock: its
              // answer stands, ours (and our changes) roll back.
              if (!saved) return yield* Effect.fail(new LostRace())
            }
            return response
          })
        ).pipe(
          Effect.catchTag("LostRace", () =>
            Effect.flatMap(store.find(principal, key, now), Option.match({
              onSome: answerStored,
              onNone: () => Effect.fail(new RequestInProgress({ message: "A request with this Idempotency-Key is still running; retry after it finishes" }))
            })))
        )
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))
    })
})

/** Purges expired idempotency records every 15 minutes, on every instance (the delete is idempotent). */
export const IdempotencyPurgeLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const store = yield* IdempotencyStore
    yield* store.purgeExpired.pipe(
      Effect.tap((n) => (n > 0 ? Effect.logInfo(`Purged ${n} expired idempotency records`) : Effect.void)),
      Effect.catchCause((cause) => Effect.logWarning("Idempotency purge failed", cause)),
      Effect.repeat(Schedule.spaced("15 minutes")),
      Effect.forkScoped
    )
  })
)
