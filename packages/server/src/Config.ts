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

/** The settings, with BASE_URL read from the environment or not (when a caller sets it). */
const configOf = (readBaseUrl: boolean): Config.Config<AppConfigShape> => Config.all({
  port: Config.schema(Port, "PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  baseUrl: readBaseUrl ? Config.option(BaseUrl) : Config.succeed(Option.none()),
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  trustedProxies: Config.schema(TrustProxy, "TRUST_PROXY").pipe(
    Config.map((value) => trustProxyOf(value) ?? 0),
    Config.withDefault(0)
  ),
  webhooksAllowInsecure: Config.Boolean("WEBHOOKS_ALLOW_INSECURE").pipe(Config.withDefault(false))
}).pipe(
  Config.map(({ baseUrl, ...rest }) => ({
    ...rest,
    databaseUrl: Option.filter(rest.databaseUrl, (url) => Redacted.value(url).length > 0),
    baseUrl: Option.getOrElse(baseUrl, () => `http://${rest.host}:${rest.port}`).replace(/\/+$/, "")
  }))
)

/** Reads the service's environment (README, "Configuration"). */
export const appConfig: Config.Config<AppConfigShape> = configOf(true)

export const AppConfigLive = Layer.effect(AppConfig, appConfig)

/** The environment's settings with some replaced (BASE_URL is then not read when `baseUrl` is given). */
export const withConfig = (overrides: Partial<AppConfigShape>) =>
  Layer.effect(AppConfig, Effect.map(configOf(overrides.baseUrl === undefined), (config) => ({ ...config, ...overrides })))
