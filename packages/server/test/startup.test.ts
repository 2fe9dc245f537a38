import { describe, expect, it, layer } from "@effect/vitest"
import { type CommandRun, realSleep, runScript, serverProcess, TestServer, TestServerLive } from "@bizops/testkit"
import { appConfig, databaseTarget } from "@bizops/server"
import { databaseError, listenError, settingError } from "@bizops/server/Startup"
import { ConfigProvider, Effect } from "effect"
import { HttpServerError } from "effect/http"
import { AuthenticationError, ConnectionError, SqlError, type SqlErrorReason } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:net"

const MAIN = "packages/server/src/main.ts"

/** Runs the service (main.ts, as `npm start` does) to its end with these settings. */
const start = (env: Record<string, string>) => runScript(MAIN, [], env)

/**
 * A start that failed as the issue asks: exit code 1, exactly one line on stderr (returned), no stack
 * trace, nothing on stdout.
 */
const oneLineFailure = (run: CommandRun): string => {
  expect(run.code).toBe(1)
  expect(run.stderr).not.toMatch(/^\s+at /m)
  expect(run.stderr).not.toMatch(/Error:|\{|\[cause\]/)
  const lines = run.stderr.split("\n").filter((line) => line.length > 0)
  expect(lines).toHaveLength(1)
  expect(run.stdout).toBe("")
  return lines[0]
}

/** A TCP server on a free loopback port, closed with the scope: the port is taken. */
const takenPort = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<Server>((ready) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => ready(server))
    })
  ),
  (server) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
)

const portOf = (server: Server) => {
  const address = server.address()
  return typeof address === "object" && address !== null ? address.port : 0
}

/** A loopback port on which nothing listens (taken, then let go). */
const freePort = Effect.scoped(Effect.map(takenPort, portOf))

/** The words of a shell command line as the printed help writes them (double quotes group). */
const words = (line: string) => Array.from(line.matchAll(/"([^"]*)"|(\S+)/g), (m) => m[1] ?? m[2])

const DATABASE_URL_REFUSED = "Invalid setting DATABASE_URL: DATABASE_URL must be a PostgreSQL URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE " +
  "(sslmode, if given: disable, prefer, require, verify-ca or verify-full), or unset for the embedded PostgreSQL"

/** The line a start prints for these settings (main.ts reads them with `appConfig` and says so with `settingError`). */
const settingLine = (env: Record<string, string>) =>
  Effect.map(Effect.flip(appConfig.parse(ConfigProvider.fromEnv({ env }))), (error) => settingError(error, env).message)

describe("the line of each bad setting", () => {
  it.effect("names the variable, shows its value unless it may hold a secret, and says what it accepts", () =>
    Effect.gen(function*() {
      const cases: Array<[Record<string, string>, string]> = [
        [{ PORT: "abc" }, `Invalid setting PORT="abc": PORT must be a whole number from 0 (any free port) to 65535`],
        [{ PORT: "70000" }, `Invalid setting PORT="70000": PORT must be a whole number from 0 (any free port) to 65535`],
        [{ PORT: "-1" }, `Invalid setting PORT="-1": PORT must be a whole number from 0 (any free port) to 65535`],
        [
          { TRUST_PROXY: "lots" },
          `Invalid setting TRUST_PROXY="lots": TRUST_PROXY must be off (0, false), on (1, true: one proxy), or the number of proxies from 1 to 9`
        ],
        [
          { WEBHOOKS_ALLOW_INSECURE: "maybe" },
          `Invalid setting WEBHOOKS_ALLOW_INSECURE="maybe": WEBHOOKS_ALLOW_INSECURE must be on (1, true, yes) or off (0, false, no)`
        ],
        // A value is printed escaped, on the one line.
        [{ PORT: "80\nat x" }, `Invalid setting PORT="80\\nat x": PORT must be a whole number from 0 (any free port) to 65535`],
        // A URL may hold a password: its value is never printed.
        [
          { BASE_URL: "https://user:s3cret-pw@api.example.com/?x=1" },
          "Invalid setting BASE_URL: BASE_URL must be an absolute http(s) URL without query or fragment, for example https://api.example.com"
        ],
        [{ DATABASE_URL: "mysql://app:s3cret-pw@127.0.0.1:3306/app" }, DATABASE_URL_REFUSED],
        [{ DATABASE_URL: "postgres://app:s3cret-pw@127.0.0.1:99999/app" }, DATABASE_URL_REFUSED],
        [{ DATABASE_URL: "postgres://app:s3cret-pw@127.0.0.1/app?sslmode=maybe" }, DATABASE_URL_REFUSED],
        [{ DATABASE_URL: "postgres://app:s3cret-pw@127.0.0.1/app?port=x" }, DATABASE_URL_REFUSED],
        [{ DATABASE_URL: "s3cret-pw" }, DATABASE_URL_REFUSED]
      ]
      for (const [env, expected] of cases) expect(yield* settingLine(env)).toBe(expected)
    }))

  it.effect("the settings that are right are read as before", () =>
    Effect.gen(function*() {
      const config = yield* appConfig.parse(ConfigProvider.fromEnv({
        env: { PORT: "0", WEBHOOKS_ALLOW_INSECURE: "yes", DATABASE_URL: "postgresql://app:pw@db.internal:6432/bizops?sslmode=require" }
      }))
      expect(config.port).toBe(0)
      expect(config.webhooksAllowInsecure).toBe(true)
      expect(config.databaseUrl._tag).toBe("Some")
      for (const [value, on] of [["1", true], ["true", true], ["on", true], ["0", false], ["off", false], ["NO", false]] as const) {
        expect((yield* appConfig.parse(ConfigProvider.fromEnv({ env: { WEBHOOKS_ALLOW_INSECURE: value } }))).webhooksAllowInsecure).toBe(on)
      }
      expect((yield* appConfig.parse(ConfigProvider.fromEnv({ env: { DATABASE_URL: "" } }))).databaseUrl._tag).toBe("None")
    }))

  it("a DATABASE_URL is read as @effect/sql-pg reads it: the query wins, the database defaults to the user", () => {
    expect(databaseTarget("postgres://app:pw@db.internal:6432/bizops")).toEqual({ host: "db.internal", port: 6432, database: "bizops", user: "app" })
    expect(databaseTarget("postgres://app@db.internal")).toEqual({ host: "db.internal", port: 5432, database: "app", user: "app" })
    expect(databaseTarget("postgresql://a@h/d?host=other&port=7&user=u&dbname=x")).toEqual({ host: "other", port: 7, database: "x", user: "u" })
    expect(databaseTarget("postgres://a@[::1]:5433/d")).toEqual({ host: "::1", port: 5433, database: "d", user: "a" })
    expect(databaseTarget("postgres://a@h/%E0%A4%A")).toBeUndefined()
  })
})

describe("the line of each failure that needs a machine we do not have", () => {
  const target = { host: "db.internal", port: 5432, database: "bizops", user: "app" }
  const sqlError = (reason: SqlErrorReason) => new SqlError({ reason })

  it("a refused password names the user and database, and says to correct them", () => {
    const cause = Object.assign(new Error("password authentication failed for user \"app\""), { code: "28P01" })
    const line = databaseError(target, sqlError(new AuthenticationError({ cause, message: "PgConnection: Failed to connect", operation: "connect" })), false).message
    expect(line).toBe(
      "The PostgreSQL server at db.internal:5432 refused user \"app\" for database \"bizops\": password authentication failed for user \"app\". " +
        "Correct the user and password in DATABASE_URL, or grant that user access."
    )
  })

  it("a host that does not resolve, and a connection that times out", () => {
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND db.internal"), { code: "ENOTFOUND" })
    expect(databaseError(target, sqlError(new ConnectionError({ cause: notFound, message: "PgConnection: Failed to connect", operation: "connect" })), false).message)
      .toMatch(/^Could not connect to PostgreSQL at db\.internal:5432 \(database "bizops", user "app"\): the host name does not resolve to an address\. /)
    const timedOut = new ConnectionError({ cause: new Error("Connection timed out"), message: "PgConnection: Connection timed out", operation: "connect" })
    expect(databaseError(target, sqlError(timedOut), false).message).toContain(": the connection timed out (5 s). Start PostgreSQL there")
  })

  it("ports below 1024 without privileges, and a HOST that is not this machine's", () => {
    const serveError = (code: string) => new HttpServerError.ServeError({ cause: Object.assign(new Error(code), { code }) })
    expect(listenError({ host: "127.0.0.1", port: 80 }, serveError("EACCES")).message).toBe(
      "Not allowed to listen on 127.0.0.1:80: ports below 1024 need privileges. Set PORT to 1024 or above (the default is 3000)."
    )
    expect(listenError({ host: "10.9.9.9", port: 3000 }, serveError("EADDRNOTAVAIL")).message).toBe(
      "HOST 10.9.9.9 is not an address of this machine. Set HOST to one of its addresses (127.0.0.1, the default; 0.0.0.0 for all)."
    )
    expect(listenError({ host: "nowhere.invalid", port: 3000 }, serveError("ENOTFOUND")).message).toBe(
      "HOST nowhere.invalid does not resolve to an address. Set HOST to an address of this machine (127.0.0.1, the default; 0.0.0.0 for all)."
    )
  })
})

describe("a start that cannot go on says why in one line on stderr and exits 1", () => {
  layer(TestServerLive)("with a database", (it) => {
    it.effect("the port is in use: the port, the host and how to fix it", () =>
      Effect.gen(function*() {
        const { databaseUrl } = yield* TestServer
        const port = portOf(yield* takenPort)
        const line = oneLineFailure(yield* start({ DATABASE_URL: databaseUrl, PORT: String(port), HOST: "127.0.0.1" }))
        expect(line).toBe(
          `Port ${port} on 127.0.0.1 is already in use (is the service already running?). ` +
            "Stop the process that holds it, or set PORT to a free port (PORT=0 takes any free port)."
        )
      }))

    it.effect("a bad setting: the variable, its value and what it accepts", () =>
      Effect.gen(function*() {
        const { databaseUrl } = yield* TestServer
        const line = oneLineFailure(yield* start({ DATABASE_URL: databaseUrl, PORT: "abc" }))
        expect(line).toBe(`Invalid setting PORT="abc": PORT must be a whole number from 0 (any free port) to 65535`)
      }))

    it.effect("DATABASE_URL that is not a PostgreSQL URL is a bad setting, printed without its value", () =>
      Effect.gen(function*() {
        const line = oneLineFailure(yield* start({ DATABASE_URL: "mysql://app:s3cret-pw@127.0.0.1:3306/app", PORT: "0" }))
        expect(line).toBe(DATABASE_URL_REFUSED)
        expect(line).not.toContain("s3cret-pw")
      }))

    it.effect("the database does not exist: its name, the server, and the command that creates it", () =>
      Effect.gen(function*() {
        const url = new URL((yield* TestServer).databaseUrl)
        const name = `bizops_missing_${randomBytes(4).toString("hex")}`
        url.pathname = `/${name}`
        const user = decodeURIComponent(url.username)
        const port = url.port === "" ? "5432" : url.port
        const line = oneLineFailure(yield* start({ DATABASE_URL: url.toString(), PORT: "0" }))
        expect(line).toBe(
          `The database "${name}" does not exist on the PostgreSQL server at ${url.hostname}:${port}. ` +
            `Create it (createdb -h ${url.hostname} -p ${port} -U ${user} ${name}) or correct DATABASE_URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE).`
        )
        // The test run's server may have a password (the embedded one's is its user's name): never printed.
        expect(line).not.toContain(url.toString())
        const password = decodeURIComponent(url.password)
        if (password !== "" && password !== user) expect(line).not.toContain(password)
      }))
  })

  it.effect("the database is unreachable: host, port, database and user, never the password, and how to fix it", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const line = oneLineFailure(yield* start({ DATABASE_URL: `postgres://bizops:s3cret-pw@127.0.0.1:${port}/bizops_app`, PORT: "0" }))
      expect(line).toBe(
        `Could not connect to PostgreSQL at 127.0.0.1:${port} (database "bizops_app", user "bizops"): ` +
          "nothing accepts connections there (connection refused). Start PostgreSQL there or correct DATABASE_URL " +
          "(postgres://USER:PASSWORD@HOST:PORT/DATABASE); unset DATABASE_URL to use the embedded PostgreSQL."
      )
      expect(line).not.toContain("s3cret-pw")
    }))
})

layer(TestServerLive)("first start on DATABASE_URL", (it) => {
  it.effect("with no organization yet, prints the admin commands that make one and a key; they work as printed; a later start prints nothing", () =>
    Effect.gen(function*() {
      const { databaseUrl } = yield* TestServer
      const help = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl })
        // The help follows the "Listening on" line, with the port the server got (PORT=0).
        for (let i = 0; i < 50 && !server.output().includes("every command."); i++) yield* realSleep(100)
        const output = server.output()
        expect(output).toContain("This database has no organization yet.")
        expect(output).toContain(`curl -s ${server.url}/api/v1/clients -H "x-api-key: API_KEY"`)
        expect(output).not.toContain(":0/")
        expect(output).not.toMatch(/^\s+at /m)

        // The commands, run as printed (ORGANIZATION_ID replaced), make an organization and a key that works.
        const commands = output.split("\n").filter((line) => line.startsWith("  npm run admin -- ")).map((line) => words(line).slice(4))
        expect(commands.map((args) => args.slice(0, 2))).toEqual([["org", "create"], ["key", "create"]])
        const org = yield* runScript("scripts/admin.ts", commands[0], { DATABASE_URL: databaseUrl })
        expect(org.code).toBe(0)
        const { organizationId } = JSON.parse(org.stdout)
        const keyArgs = commands[1].map((word) => word === "ORGANIZATION_ID" ? organizationId : word)
        const key = yield* runScript("scripts/admin.ts", keyArgs, { DATABASE_URL: databaseUrl })
        expect(key.code).toBe(0)
        const { apiKey } = JSON.parse(key.stdout)
        const status = yield* Effect.promise(() => fetch(`${server.url}/api/v1/clients`, { headers: { "x-api-key": apiKey } }).then((r) => r.status))
        expect(status).toBe(200)
        return output
      }))
      expect(help).not.toContain("bok_") // no key is made unasked on the operator's database

      // Now that the database has an organization, a start prints no help.
      yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl })
        yield* realSleep(500)
        expect(server.output()).not.toContain("no organization yet")
        expect(server.output()).not.toContain("npm run admin")
      }))
    }), { timeout: 120_000 })
})

layer(TestServerLive)("stopping", (it) => {
  it.effect("SIGTERM: the server stops accepting connections and the process exits 0, without an error", () =>
    Effect.gen(function*() {
      const { databaseUrl } = yield* TestServer
      yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT: "5" })
        const health = yield* Effect.promise(() => fetch(`${server.url}/health`).then((r) => r.status))
        expect(health).toBe(200)
        const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
          server.child.once("exit", (code, signal) => done({ code, signal })))
        server.child.kill("SIGTERM")
        expect(yield* Effect.promise(() => exited)).toEqual({ code: 0, signal: null })
        const refused = yield* Effect.promise(() => fetch(`${server.url}/health`).then(() => "answered", () => "refused"))
        expect(refused).toBe("refused")
        expect(server.output()).not.toMatch(/Error|^\s+at /m)
      }))
    }))

  it.effect("SHUTDOWN_TIMEOUT must be a number of seconds", () =>
    Effect.gen(function*() {
      expect((yield* appConfig.parse(ConfigProvider.fromEnv({ env: { SHUTDOWN_TIMEOUT: "2.5" } }))).shutdownTimeoutSeconds).toBe(2.5)
      expect((yield* appConfig.parse(ConfigProvider.fromEnv({ env: {} }))).shutdownTimeoutSeconds).toBe(10)
      for (const bad of ["soon", "-1", "7200"]) {
        expect(yield* settingLine({ SHUTDOWN_TIMEOUT: bad })).toContain("SHUTDOWN_TIMEOUT must be a number of seconds from 0 to 3600")
      }
    }))
})

layer(TestServerLive)("the request log", (it) => {
  it.effect("one line per request, with LOG_FORMAT=json one JSON object: method, path without the query, status, duration, request id", () =>
    Effect.gen(function*() {
      const { databaseUrl } = yield* TestServer
      yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl, LOG_FORMAT: "json" })
        const answer = yield* Effect.promise(() => fetch(`${server.url}/api/v1/clients?clientId=private`, { headers: { "x-request-id": "log-me-1" } }))
        expect(answer.status).toBe(401)
        yield* Effect.promise(() => fetch(`${server.url}/health`, { method: "DELETE" }))
        for (let i = 0; i < 50 && !server.output().includes("\"DELETE /health"); i++) yield* realSleep(100)
        const lines = server.output().split("\n").filter((line) => line.includes("\"annotations\"") && line.includes("\"requestId\""))
        const logged = lines.map((line) => JSON.parse(line))
        expect(logged.map((entry) => [entry.level, entry.annotations.method, entry.annotations.path, entry.annotations.status])).toEqual([
          ["INFO", "GET", "/api/v1/clients", 401],
          ["INFO", "DELETE", "/health", 405]
        ])
        expect(logged[0].annotations.requestId).toBe("log-me-1")
        expect(typeof logged[0].annotations.durationMs).toBe("number")
        expect(server.output()).not.toContain("private")
      }))
      // LOG_REQUESTS=off: none.
      yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl, LOG_REQUESTS: "off" })
        yield* Effect.promise(() => fetch(`${server.url}/health`))
        yield* realSleep(300)
        expect(server.output()).not.toContain("GET /health")
      }))
      // The default format off a terminal: one line per entry, the annotations as JSON, written in batches
      // (so a line may take a moment to appear), and still everything once the server stops.
      const output = yield* Effect.scoped(Effect.gen(function*() {
        const server = yield* serverProcess({ DATABASE_URL: databaseUrl })
        const answer = yield* Effect.promise(() => fetch(`${server.url}/api/v1/clients?secret=private`, { headers: { "x-request-id": "log-me-2" } }))
        expect(answer.status).toBe(401)
        for (let i = 0; i < 50 && !server.output().includes("log-me-2"); i++) yield* realSleep(100)
        return server.output()
      }))
      const line = output.split("\n").find((entry) => entry.includes("log-me-2")) ?? ""
      expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(#\d+\): GET \/api\/v1\/clients 401 [\d.]+ ms \{/)
      expect(JSON.parse(line.slice(line.indexOf("{")))).toMatchObject({ method: "GET", path: "/api/v1/clients", status: 401, requestId: "log-me-2" })
      expect(output).not.toContain("private")
    }), { timeout: 120_000 })
})
