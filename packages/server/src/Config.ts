import { Config, Context, Effect, Layer, Option, Redacted, Schema, SchemaTransformation } from "effect"

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly baseUrl: string
  /** `DATABASE_URL`: a PostgreSQL server; none means the embedded PostgreSQL. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** `DATA_DIR`: where the embedded PostgreSQL keeps its data and the server its dev credentials. */
  readonly dataDir: string
  /**
   * `TRUST_PROXY`: how many proxies in front of the service append to `X-Forwarded-For` (0: none, the
   * socket's address is the client's). `true`/`yes`/`on` mean 1.
   */
  readonly trustedProxies: number
  /** `WEBHOOKS_ALLOW_INSECURE=1`: webhook targets may be http on a loopback address (development, tests). */
  readonly webhooksAllowInsecure: boolean
  /** `SHUTDOWN_TIMEOUT` (seconds, default 10): how long SIGTERM waits for requests in flight before it closes their connections. */
  readonly shutdownTimeoutSeconds: number
}

export class AppConfig extends Context.Service<AppConfig, AppConfigShape>()("@bizops/server/AppConfig") {}

/** An absolute http(s) URL without query or fragment: what BASE_URL must be (the OAuth issuer). */
export const isBaseUrl = (value: string): boolean => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === "" && url.username === ""
  } catch {
    return false
  }
}

const BaseUrl = Config.schema(
  Schema.String.check(Schema.makeFilter(isBaseUrl, {
    message: "BASE_URL must be an absolute http(s) URL without query or fragment, for example https://api.example.com"
  })),
  "BASE_URL"
)

const PORT_MESSAGE = "PORT must be a whole number from 0 (any free port) to 65535"
const Port = Schema.String.check(
  Schema.makeFilter((s: string) => /^[0-9]{1,5}$/.test(s.trim()) && Number(s) <= 65535, { message: PORT_MESSAGE })
).pipe(
  Schema.decodeTo(Schema.Number, SchemaTransformation.transform({ decode: (s: string) => Number(s), encode: (n: number) => String(n) }))
)

/** Where a PostgreSQL URL points, without its password: what a start-up failure names. */
export interface DatabaseTarget {
  readonly host: string
  readonly port: number
  readonly database: string
  readonly user: string
}

const decoded = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

const portOf = (value: string): number | undefined => /^[0-9]{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535 ? Number(value) : undefined

const SSL_MODES = new Set(["disable", "allow", "prefer", "require", "verify-ca", "verify-full"])

/**
 * Where a `postgres://` (or `postgresql://`) URL points, read as @effect/sql-pg reads it (the query's
 * host, port, user and dbname win over the URL's; the database defaults to the user's name, as
 * PostgreSQL's does), or undefined when @effect/sql-pg would refuse the URL. Checked when the settings
 * are read, so that a malformed DATABASE_URL is a bad setting, not a failure to connect.
 */
export const databaseTarget = (value: string): DatabaseTarget | undefined => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") return undefined
  const hostname = url.hostname.startsWith("[") && url.hostname.endsWith("]") ? url.hostname.slice(1, -1) : decoded(url.hostname)
  const user = decoded(url.username)
  const database = decoded(url.pathname.replace(/^\//, ""))
  if (hostname === undefined || user === undefined || database === undefined || decoded(url.password) === undefined) return undefined
  let target = {
    host: hostname === "" ? "localhost" : hostname,
    port: url.port === "" ? 5432 : portOf(url.port),
    database,
    user: user === "" ? process.env.USER ?? process.env.USERNAME ?? "" : user
  }
  for (const [key, param] of url.searchParams) {
    if (key === "host") target = { ...target, host: param }
    else if (key === "port") target = { ...target, port: portOf(param) }
    else if (key === "user") target = { ...target, user: param }
    else if (key === "dbname") target = { ...target, database: param }
    else if (key === "sslmode" && !SSL_MODES.has(param)) return undefined
    else if (key === "connect_timeout" && !/^[0-9]+$/.test(param)) return undefined
  }
  const { port } = target
  if (port === undefined || target.user === "") return undefined
  return { ...target, port, database: target.database === "" ? target.user : target.database }
}

const DatabaseUrl = Config.schema(
  Schema.String.check(Schema.makeFilter((value: string) => value === "" || databaseTarget(value) !== undefined, {
    message: "DATABASE_URL must be a PostgreSQL URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE (sslmode, if given: disable, prefer, require, verify-ca or verify-full), or unset for the embedded PostgreSQL"
  })),
  "DATABASE_URL"
)

/** TRUST_PROXY's words: off, on (one proxy), or a number of proxies. */
const trustProxyOf = (value: string): number | undefined => {
  const v = value.trim().toLowerCase()
  if (["", "0", "false", "no", "off"].includes(v)) return 0
  if (["true", "yes", "on"].includes(v)) return 1
  if (/^[1-9]$/.test(v)) return Number(v)
  return undefined
}

const TrustProxy = Schema.String.check(
  Schema.makeFilter((value: string) => trustProxyOf(value) !== undefined, {
    message: "TRUST_PROXY must be off (0, false), on (1, true: one proxy), or the number of proxies from 1 to 9"
  })
)

const ShutdownTimeout = Schema.NumberFromString.check(
  Schema.makeFilter((seconds: number) => Number.isFinite(seconds) && seconds >= 0 && seconds <= 3600, {
    message: "SHUTDOWN_TIMEOUT must be a number of seconds from 0 to 3600"
  })
)

const ON = new Set(["1", "true", "yes", "y", "on"])
const OFF = new Set(["0", "false", "no", "n", "off"])

/** A switch, in Config.Boolean's words, with a message that names the setting and the words it takes. */
const AllowInsecure = Schema.String.check(
  Schema.makeFilter((value: string) => ON.has(value.trim().toLowerCase()) || OFF.has(value.trim().toLowerCase()), {
    message: "WEBHOOKS_ALLOW_INSECURE must be on (1, true, yes) or off (0, false, no)"
  })
)

/** The settings, with BASE_URL read from the environment or not (when a caller sets it). */
const configOf = (readBaseUrl: boolean): Config.Config<AppConfigShape> => Config.all({
  port: Config.schema(Port, "PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  baseUrl: readBaseUrl ? Config.option(BaseUrl) : Config.succeed(Option.none()),
  databaseUrl: Config.option(Config.map(DatabaseUrl, Redacted.make)),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  trustedProxies: Config.schema(TrustProxy, "TRUST_PROXY").pipe(
    Config.map((value) => trustProxyOf(value) ?? 0),
    Config.withDefault(0)
  ),
  webhooksAllowInsecure: Config.schema(AllowInsecure, "WEBHOOKS_ALLOW_INSECURE").pipe(
    Config.map((value) => ON.has(value.trim().toLowerCase())),
    Config.withDefault(false)
  ),
  shutdownTimeoutSeconds: Config.schema(ShutdownTimeout, "SHUTDOWN_TIMEOUT").pipe(Config.withDefault(10))
}).pipe(
  Config.map(({ baseUrl, ...rest }) => ({
    ...rest,
    databaseUrl: Option.filter(rest.databaseUrl, (url) => Redacted.value(url).length > 0),
    baseUrl: Option.getOrElse(baseUrl, () => `http://${rest.host}:${rest.port}`).replace(/\/+$/, "")
  }))
)

/** How the service logs: `LOG_REQUESTS` (a line per request, on by default) and `LOG_FORMAT` (`pretty` or `json`). */
export interface LoggingShape {
  readonly requests: boolean
  readonly format: "pretty" | "json"
}

const LogRequestsSetting = Schema.String.check(
  Schema.makeFilter((value: string) => ON.has(value.trim().toLowerCase()) || OFF.has(value.trim().toLowerCase()), {
    message: "LOG_REQUESTS must be on (1, true, yes) or off (0, false, no)"
  })
)

const LogFormat = Schema.Literals(["pretty", "json"]).annotate({ message: "LOG_FORMAT must be pretty or json" })

/** Reads the logging settings (read by the service's main only). */
export const loggingConfig: Config.Config<LoggingShape> = Config.all({
  requests: Config.schema(LogRequestsSetting, "LOG_REQUESTS").pipe(
    Config.map((value) => ON.has(value.trim().toLowerCase())),
    Config.withDefault(true)
  ),
  format: Config.schema(LogFormat, "LOG_FORMAT").pipe(Config.withDefault("pretty" as const))
})

/** Reads the service's environment (README, "Configuration"). */
export const appConfig: Config.Config<AppConfigShape> = configOf(true)

export const AppConfigLive = Layer.effect(AppConfig, appConfig)

/** The environment's settings with some replaced (BASE_URL is then not read when `baseUrl` is given). */
export const withConfig = (overrides: Partial<AppConfigShape>) =>
  Layer.effect(AppConfig, Effect.map(configOf(overrides.baseUrl === undefined), (config) => ({ ...config, ...overrides })))
