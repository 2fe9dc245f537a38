import { CurrentRequestId, toEnvelope } from "@bizops/domain"
import { Duration, Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { migrations } from "../Sql/Migrations.js"

export const HEALTH_PATH = "/health"
export const READY_PATH = "/ready"

/** The routes of this file, for the route table (405 and Allow) of the error envelope. */
export const HEALTH_ROUTES = [
  { method: "GET", path: HEALTH_PATH },
  { method: "GET", path: READY_PATH }
] as const

/** A probe's answer describes this moment only: no cache may keep it. */
const NO_STORE = { "cache-control": "no-store" }

/** How long /ready waits for the database: a probe must answer well within its own timeout. */
const READY_TIMEOUT = Duration.seconds(2)

/**
 * `GET /health` (liveness) and `GET /ready` (readiness), without credentials, rate limit or request
 * log: load balancers and orchestrators call them every few seconds.
 *
 * - `/health` answers 200 `{"status":"ok"}` whenever the process serves; it touches nothing else, so a
 *   database outage never gets a healthy process restarted.
 * - `/ready` answers 200 `{"status":"ready"}` when the database answers within 2 s and has every
 *   migration this code knows (one statement: the highest recorded id), else 503 with the error envelope
 *   (`internal_error`, the specification's code for a failure on our side; the message says which check
 *   failed, without the database's address or error).
 */
export const HealthRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const known = yield* Effect.orDie(migrations)
    const latest = Math.max(0, ...known.map(([id]) => id))

    const notReady = (message: string) =>
      Effect.map(Effect.service(CurrentRequestId), (requestId) =>
        HttpServerResponse.jsonUnsafe(toEnvelope("internal_error", { message }, requestId), { status: 503, headers: NO_STORE }))

    yield* router.add("GET", HEALTH_PATH, Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers: NO_STORE })))

    yield* router.add(
      "GET",
      READY_PATH,
      sql<{ readonly latest: number | null }>`SELECT max(migration_id)::int AS latest FROM schema_migrations`.pipe(
        Effect.timeout(READY_TIMEOUT),
        Effect.result,
        Effect.flatMap((result) => {
          if (result._tag === "Failure") {
            const failure = result.failure
            // No schema_migrations table yet (42P01): nothing is migrated.
            const message = failure._tag === "TimeoutError"
              ? "Not ready: the database did not answer within 2 seconds"
              : failure.reason._tag === "SqlSyntaxError"
              ? `Not ready: the database's migrations are not done (0 of ${latest})`
              : "Not ready: the database cannot be reached"
            return Effect.andThen(Effect.logDebug("Not ready", failure), notReady(message))
          }
          const applied = result.success[0]?.latest ?? 0
          return applied >= latest
            ? Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ready" }, { headers: NO_STORE }))
            : notReady(`Not ready: the database's migrations are not done (${applied} of ${latest})`)
        })
      )
    )
  })
)
