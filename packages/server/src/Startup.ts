import { Data, SchemaIssue } from "effect"
import type { Config } from "effect"
import type { HttpServerError } from "effect/http"
import type { SqlError } from "effect/sql/SqlError"
import type { DatabaseTarget } from "./Config.js"

/**
 * A start that cannot go on, said in one line: what is wrong and how to fix it. `main.ts` prints the
 * message on stderr and exits 1, without a stack trace (the trace says nothing to an operator).
 */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** Settings whose value may hold a secret (a password in a URL, a token): never echoed. */
const isSecretSetting = (name: string) => /URL|TOKEN|SECRET|PASSWORD|KEY|CREDENTIAL/i.test(name)

/** A value as it is shown in the line: quoted, escaped (one line whatever it holds), cut when long. */
const shown = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)

/**
 * A bad setting: the environment variable, its value when it is not a secret, and what it accepts
 * (the schema's message, which names the variable and the accepted values).
 */
export const settingError = (error: Config.ConfigError, env: Record<string, string | undefined> = process.env): StartupError => {
  const cause = error.cause
  if (cause._tag !== "SchemaError") return new StartupError({ message: `Could not read the settings: ${cause.message}` })
  const parts = formatIssues(cause.issue).issues.map((issue) => {
    const name = issue.path?.map((p) => String(typeof p === "object" ? p.key : p)).join(".") ?? ""
    const value = env[name]
    const setting = name === "" ? "" : value === undefined || isSecretSetting(name) ? name : `${name}=${shown(value)}`
    const message = name === "" || issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`
    return setting === "" ? message : `${setting}: ${message}`
  })
  return new StartupError({ message: `Invalid setting ${parts.join("; ")}` })
}

const causeOf = (error: SqlError): { readonly code: string | undefined; readonly message: string } => {
  const cause: unknown = error.reason.cause
  if (cause instanceof Error) {
    const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
    return { code, message: cause.message }
  }
  return { code: undefined, message: error.reason.message.replace(/^PgConnection: /, "") }
}

/** What went wrong, in words: the cause's code (a socket's or PostgreSQL's SQLSTATE) read for an operator. */
const whatHappened = (error: SqlError): string => {
  const { code, message } = causeOf(error)
  switch (code) {
    case "ECONNREFUSED": return "nothing accepts connections there (connection refused)"
    case "ENOTFOUND":
    case "EAI_AGAIN": return "the host name does not resolve to an address"
    case "ETIMEDOUT": return "the connection timed out"
    case "EHOSTUNREACH":
    case "ENETUNREACH": return "the host cannot be reached"
    case "ECONNRESET": return "the server closed the connection"
  }
  if (error.reason._tag === "ConnectionError" && /timed out/i.test(message)) return "the connection timed out (5 s)"
  return message.length > 0 ? message : error.reason._tag
}

const where = (target: DatabaseTarget) => `${target.host}:${target.port}`

/**
 * The database could not be opened, or its migrations not run: which server, which database and user
 * (never the password), what happened and how to fix it. `embedded` is the PostgreSQL the service
 * started itself, which DATABASE_URL replaces.
 */
export const databaseError = (target: DatabaseTarget, error: SqlError, embedded: boolean): StartupError => {
  const sqlState = causeOf(error).code
  if (embedded) {
    return new StartupError({
      message: `The embedded PostgreSQL at ${where(target)} failed: ${whatHappened(error)}. ` +
        "Start the service again; if it keeps failing, set DATABASE_URL to a PostgreSQL server."
    })
  }
  const fix = "or correct DATABASE_URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
  if (sqlState === "3D000") {
    return new StartupError({
      message: `The database "${target.database}" does not exist on the PostgreSQL server at ${where(target)}. ` +
        `Create it (createdb -h ${target.host} -p ${target.port} -U ${target.user} ${target.database}) ${fix}.`
    })
  }
  if (error.reason._tag === "AuthenticationError" || sqlState?.startsWith("28") === true) {
    return new StartupError({
      message: `The PostgreSQL server at ${where(target)} refused user "${target.user}" for database "${target.database}": ` +
        `${whatHappened(error)}. Correct the user and password in DATABASE_URL, or grant that user access.`
    })
  }
  if (error.reason._tag === "ConnectionError") {
    return new StartupError({
      message: `Could not connect to PostgreSQL at ${where(target)} (database "${target.database}", user "${target.user}"): ` +
        `${whatHappened(error)}. Start PostgreSQL there ${fix}; unset DATABASE_URL to use the embedded PostgreSQL.`
    })
  }
  return new StartupError({
    message: `Could not prepare the database "${target.database}" at ${where(target)} (user "${target.user}"): ` +
      `${whatHappened(error)}. Check that user's rights on the database (the service creates its tables there) ${fix}.`
  })
}

const errnoOf = (cause: unknown): string | undefined =>
  cause instanceof Error && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** The server could not listen: which address, why, and which setting to change. */
export const listenError = (options: { readonly host: string; readonly port: number }, error: HttpServerError.ServeError): StartupError => {
  const address = `${options.host}:${options.port}`
  switch (errnoOf(error.cause)) {
    case "EADDRINUSE":
      return new StartupError({
        message: `Port ${options.port} on ${options.host} is already in use (is the service already running?). ` +
          "Stop the process that holds it, or set PORT to a free port (PORT=0 takes any free port)."
      })
    case "EACCES":
      return new StartupError({
        message: `Not allowed to listen on ${address}: ports below 1024 need privileges. Set PORT to 1024 or above (the default is 3000).`
      })
    case "EADDRNOTAVAIL":
      return new StartupError({
        message: `HOST ${options.host} is not an address of this machine. Set HOST to one of its addresses (127.0.0.1, the default; 0.0.0.0 for all).`
      })
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError({
        message: `HOST ${options.host} does not resolve to an address. Set HOST to an address of this machine (127.0.0.1, the default; 0.0.0.0 for all).`
      })
  }
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause)
  return new StartupError({ message: `Could not listen on ${address}: ${cause}. Check HOST and PORT.` })
}

/**
 * What a first start on a database of one's own (DATABASE_URL, no organization yet) prints: the admin
 * commands that make an organization and its first API key, and a request to try the key with.
 */
export const firstStartHelp = (baseUrl: string): string =>
  [
    "",
    "This database has no organization yet. Make one and its first API key with the admin command line,",
    "run with the same DATABASE_URL (the service may keep running):",
    "",
    "  npm run admin -- org create --name \"My Company\"",
    "      prints {\"organizationId\",\"businessId\"}",
    "  npm run admin -- key create --org ORGANIZATION_ID --scopes \"clients:read clients:write\"",
    "      prints {\"id\",\"apiKey\",\"scopes\"}: the key is shown this once",
    "",
    "Then try the key:",
    `  curl -s ${baseUrl}/api/v1/clients -H "x-api-key: API_KEY"`,
    "",
    "`npm run admin -- scopes` lists every scope, `npm run admin -- --help` every command.",
    ""
  ].join("\n")
