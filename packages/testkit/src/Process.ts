import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { resolve } from "node:path"

/** The repository's root folder. */
export const repoRoot = resolve(import.meta.dirname, "../../..")
/** Node with tsx as a loader: one process (a `tsx` wrapper would be a second, which a SIGKILL would orphan). */
const node = (script: string, args: ReadonlyArray<string> = []) => [process.execPath, ["--conditions=source", "--import", "tsx", script, ...args]] as const

export interface ServerProcess {
  readonly child: ChildProcess
  /** `http://127.0.0.1:PORT`, from the server's "Listening on" line. */
  readonly url: string
  /** Everything the process printed so far. */
  readonly output: () => string
}

/**
 * Starts the service as its own process (`packages/server/src/main.ts`, as `npm start` does) on a
 * free port, with the given environment on top of this one, and stops it (SIGTERM) when the scope
 * closes. DATABASE_URL is removed unless `env` sets it.
 */
export const serverProcess = (env: Record<string, string>, options?: { readonly cwd?: string }) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<ServerProcess>((ready, fail) => {
        const childEnv: Record<string, string | undefined> = { ...process.env, PORT: "0", ...env }
        if (env.DATABASE_URL === undefined) delete childEnv.DATABASE_URL
        if (env.BASE_URL === undefined) delete childEnv.BASE_URL // vitest's own BASE_URL=/ is not ours
        const [command, args] = node("packages/server/src/main.ts")
        const child = spawn(command, args, { cwd: options?.cwd ?? repoRoot, env: childEnv })
        let output = ""
        const timer = setTimeout(() => fail(new Error(`the server did not start in 60 s:\n${output}`)), 60_000)
        const onData = (d: Buffer) => {
          output += d.toString()
          const match = /Listening on (http:\/\/[\d.]+:\d+)/.exec(output)
          if (match) {
            clearTimeout(timer)
            ready({ child, url: match[1], output: () => output })
          }
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
        child.once("exit", (code) => {
          clearTimeout(timer)
          fail(new Error(`the server exited with ${code}:\n${output}`))
        })
      })
    ),
    ({ child }) =>
      Effect.promise(() =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
          child.once("close", () => {
            clearTimeout(kill)
            done()
          })
          child.kill("SIGTERM")
        })
      )
  )

export interface CommandRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a TypeScript entry point of the repository (a script) to its end, as `npm run` would; `input` is
 * written to its standard input, which is closed either way.
 */
export const runScript = (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options?: { readonly cwd?: string; readonly input?: string }
) =>
  Effect.promise(() =>
    new Promise<CommandRun>((done) => {
      const [command, nodeArgs] = node(script, args)
      const childEnv: Record<string, string | undefined> = { ...process.env, ...env }
      if (env.BASE_URL === undefined) delete childEnv.BASE_URL // vitest's own BASE_URL=/ is not ours
      const child = spawn(command, nodeArgs, { cwd: options?.cwd ?? repoRoot, env: childEnv })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (d) => (stdout += d))
      child.stderr.on("data", (d) => (stderr += d))
      child.on("close", (code) => done({ code, stdout, stderr }))
      child.stdin.end(options?.input ?? "")
    })
  )
