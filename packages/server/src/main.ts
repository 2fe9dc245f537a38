import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, References } from "effect"
import { bootstrapDemo } from "./Bootstrap.js"
import { AppConfig, AppConfigLive } from "./Config.js"
import { DatabaseLive } from "./Sql/Database.js"
import { migrate } from "./Sql/Migrations.js"
import { serverLayer } from "./Server.js"

const main = Effect.gen(function*() {
  const config = yield* AppConfig
  yield* migrate
  yield* bootstrapDemo
  return yield* Layer.launch(serverLayer({ port: config.port, host: config.host }))
})

main.pipe(
  Effect.provide(DatabaseLive),
  Effect.provide(AppConfigLive),
  Effect.provideService(References.MinimumLogLevel, "Info"),
  Effect.scoped,
  // A database that cannot start is said in one line (what, and how to fix it), without a stack trace.
  Effect.catchTag("EmbeddedPostgresError", (error) =>
    Effect.sync(() => {
      process.stderr.write(`${error.message}\n`)
      process.exit(1)
    })),
  NodeRuntime.runMain
)
