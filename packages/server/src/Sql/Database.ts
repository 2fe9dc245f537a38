import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, String } from "effect"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { startEmbedded } from "./Embedded.js"
import { autoPrepare } from "./Prepared.js"

const DATE_OID = 1082
const INT8_OID = 20
const NUMERIC_OID = 1700

/**
 * Column values as the API wants them: `date` stays a `YYYY-MM-DD` string (never a local-midnight
 * Date), `bigint` (money in minor units, counts) and `numeric` become numbers.
 */
export const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === DATE_OID) return (value: string) => value
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value)
    return format === "binary" ? pg.types.getTypeParser(oid, "binary") : pg.types.getTypeParser(oid, "text")
  }) as pg.CustomTypesConfig["getTypeParser"]
}

/** A pg pool whose connections prepare their statements (Sql/Prepared.ts), closed with the scope. */
const preparingPool = (config: pg.PoolConfig) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool({ ...config, types: pgTypes })
      pool.on("connect", autoPrepare)
      pool.on("error", () => {}) // an idle connection that drops is replaced on the next checkout
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
  )

const clientOptions = {
  types: pgTypes,
  transformResultNames: String.snakeToCamel,
  transformQueryNames: String.camelToSnake
}

/** An @effect/sql-pg client over a preparing pool; names are camelCase in TypeScript and snake_case in SQL. */
const pgClient = (url: Redacted.Redacted, max: number, applicationName: string, options?: string) =>
  PgClient.fromPool({
    acquire: preparingPool({
      connectionString: Redacted.value(url),
      max,
      application_name: applicationName,
      ...(options === undefined ? {} : { options })
    }),
    applicationName,
    ...clientOptions
  })

/** The SQL client on a connection URL. */
export const sqlClientLayer = (url: Redacted.Redacted, options?: { readonly maxConnections?: number }) =>
  Layer.scopedContext(
    Effect.map(pgClient(url, options?.maxConnections ?? 20, "bizops-api"), (client) =>
      Context.make(PgClient.PgClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * A second, small pool for the statement that authenticates a request and counts it for the rate
 * limit. A counter needs no durability, so its connections commit without waiting for the disk
 * (`synchronous_commit = off`); losing the last few counts in a crash is harmless.
 */
export class CounterSql extends Context.Tag("@bizops/server/CounterSql")<CounterSql, PgClient.PgClient>() {}

export const counterSqlLayer = (url: Redacted.Redacted) =>
  Layer.scoped(CounterSql, pgClient(url, 10, "bizops-api-counter", "-c synchronous_commit=off")).pipe(
    Layer.provide(Reactivity.layer)
  )

/** Both pools on one database. */
export const databaseLayer = (url: Redacted.Redacted, options?: { readonly maxConnections?: number }) =>
  Layer.mergeAll(sqlClientLayer(url, options), counterSqlLayer(url))

/** `DATABASE_URL` when set; otherwise the embedded PostgreSQL, started for the life of the layer. */
export const DatabaseUrlLive = Effect.gen(function*() {
  const config = yield* AppConfig
  if (Option.isSome(config.databaseUrl)) return config.databaseUrl.value
  const server = yield* startEmbedded(config.dataDir)
  yield* Effect.logInfo(`Embedded PostgreSQL on 127.0.0.1:${server.port}, data in ${config.dataDir}`)
  return Redacted.make(server.url("postgres"))
})

export const DatabaseLive = Layer.unwrapScoped(Effect.map(DatabaseUrlLive, (url) => databaseLayer(url)))

export const isEmbedded = Effect.map(AppConfig, (config) => Option.isNone(config.databaseUrl))
