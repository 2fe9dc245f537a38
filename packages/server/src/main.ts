import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Context, Effect, Exit, Layer, Option, Redacted, References, Runtime } from "effect"
import { HttpServer } from "effect/http"
import { bootstrap } from "./Bootstrap.js"
import { AppConfig, AppConfigLive, databaseTarget, loggingConfig } from "./Config.js"
import { LogRequests } from "./Http/Envelope.js"
import { loggerLayer } from "./Logging.js"
import { databaseLayer, DatabaseUrlLive } from "./Sql/Database.js"
import { migrate } from "./Sql/Migrations.js"
import { serverLayer } from "./Server.js"
import { databaseError, listenError, settingError, StartupError } from "./Startup.js"

/**
 * SIGTERM is the way a service is stopped (an orchestrator, `kill`): once the server closed (requests in
 * flight finished, worker leases released, the database closed) the process exits 0, as the contract asks.
 * Ctrl-C (SIGINT) keeps the usual 130, and a failure its own code.
 */
let sigterm = false
process.once("SIGTERM", () => {
  sigterm = true
})
const stoppedBySigterm: Runtime.Teardown = (exit, onExit) =>
  Runtime.defaultTeardown(exit, (code) => onExit(sigterm && Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? 0 : code))

const main = Effect.gen(function*() {
  const config = yield* AppConfig
  const logging = yield* loggingConfig
  const url = yield* DatabaseUrlLive
  const embedded = Option.isNone(config.databaseUrl)
  const target = databaseTarget(Redacted.value(url))
  // Every SQL failure before the server listens is the database's (unreachable, missing, refusing):
  // said in one line that names the server, the database and the user.
  const prepared = Effect.andThen(migrate, bootstrap).pipe(
    Effect.catchTag("SqlError", (error) =>
      Effect.fail(
        target === undefined
          ? new StartupError({ message: `Could not open the database: ${error.message}` })
          : databaseError(target, error, embedded)
      ))
  )
  const serving = Effect.scoped(Effect.gen(function*() {
    const help = yield* prepared
    const server = yield* Layer.build(serverLayer({ port: config.port, host: config.host, shutdownTimeoutSeconds: config.shutdownTimeoutSeconds })).pipe(
      Effect.catchTag("ServeError", (error) => Effect.fail(listenError({ host: config.host, port: config.port }, error)))
    )
    if (Option.isSome(help)) {
      // With PORT=0 (and no BASE_URL) the port is known only now that the server listens.
      const address = Context.get(server, HttpServer.HttpServer).address
      const baseUrl = config.port === 0 && address._tag !== "UnixPathAddress" && config.baseUrl === `http://${config.host}:0`
        ? `http://${config.host}:${address.port}`
        : config.baseUrl
      yield* Console.log(help.value(baseUrl))
    }
    return yield* Effect.never
  }))
  return yield* serving.pipe(
    // The server's scope closes first (it stops serving, the worker lets go of its leases), then the
    // database's pools, then the embedded PostgreSQL (the outer scope).
    Effect.provide(databaseLayer(url)),
    Effect.provideService(LogRequests, logging.requests),
    // LOG_FORMAT=json: one JSON object per line (a log collector's format); pretty otherwise. Batched
    // writes unless pretty on a terminal (Logging.ts).
    Effect.provide(loggerLayer(logging.format))
  )
})

main.pipe(
  Effect.provide(AppConfigLive),
  Effect.provideService(References.MinimumLogLevel, "Info"),
  Effect.scoped,
  Effect.catchTag("ConfigError", (error) => Effect.fail(settingError(error))),
  // A start that cannot go on is said in one line (what, and how to fix it), without a stack trace, and
  // exits 1: a bad setting, a database that cannot start or be reached, a port that is taken.
  Effect.catchTag(["EmbeddedPostgresError", "StartupError"], (error) =>
    Effect.sync(() => {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    })),
  (program) => NodeRuntime.runMain(program, { teardown: stoppedBySigterm })
)
