import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

export interface AppConfigShape {
  readonly port: number
  readonly host: string
  readonly baseUrl: string
  /** `DATABASE_URL`: a PostgreSQL server; none means the embedded PostgreSQL. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /** `DATA_DIR`: where the embedded PostgreSQL keeps its data and the server its dev credentials. */
  readonly dataDir: string
  readonly trustProxy: boolean
  /** `WEBHOOKS_ALLOW_INSECURE=1`: webhook targets may be http on a loopback address (development, tests). */
  readonly webhooksAllowInsecure: boolean
}

export class AppConfig extends Context.Tag("@bizops/server/AppConfig")<AppConfig, AppConfigShape>() {}

/** Reads the service's environment (README, "Configuration"). */
export const appConfig: Config.Config<AppConfigShape> = Config.all({
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be a whole number from 0 (any free port) to 65535", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(3000)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  baseUrl: Config.option(Config.string("BASE_URL")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  trustProxy: Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  webhooksAllowInsecure: Config.boolean("WEBHOOKS_ALLOW_INSECURE").pipe(Config.withDefault(false))
}).pipe(
  Config.map(({ baseUrl, ...rest }) => ({
    ...rest,
    databaseUrl: Option.filter(rest.databaseUrl, (url) => Redacted.value(url).length > 0),
    baseUrl: Option.getOrElse(baseUrl, () => `http://${rest.host}:${rest.port}`)
  }))
)

export const AppConfigLive = Layer.effect(AppConfig, appConfig)

export const withConfig = (overrides: Partial<AppConfigShape>) =>
  Layer.effect(AppConfig, Effect.map(appConfig, (config) => ({ ...config, ...overrides })))
