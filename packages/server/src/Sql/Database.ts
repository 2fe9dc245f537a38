import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, String } from "effect"
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { startEmbedded } from "./Embedded.js"
import { CounterSql, FastSql, makeFastQuery } from "./Fast.js"
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

/**
 * The SQL clients on a connection URL, over one preparing pool: @effect/sql's (names camelCase in
 * TypeScript, snake_case in SQL) and the fast path for hot reads (Sql/Fast.ts).
 */
export const sqlClientLayer = (url: Redacted.Redacted, options?: { readonly maxConnections?: number }) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const pool = yield* preparingPool({
        connectionString: Redacted.value(url),
        max: options?.maxConnections ?? 20,
        application_name: "bizops-api"
      })
      const client = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: "bizops-api", ...clientOptions })
      return Context.make(PgClient.PgClient, client).pipe(
        Context.add(SqlClient.SqlClient, client),
        Context.add(FastSql, makeFastQuery(pool))
      )
    })
  ).pipe(Layer.provide(Reactivity.layer))

export const counterSqlLayer = (url: Redacted.Redacted) =>
  Layer.scoped(
    CounterSql,
    Effect.map(
      preparingPool({
        connectionString: Redacted.value(url),
        max: 10,
        application_name: "bizops-api-counter",
        // A counter needs no durability: its commits do not wait for the disk. A crash may lose the
        // last few counts, which only lets a few more requests through.
        options: "-c synchronous_commit=off"
      }),
      makeFastQuery
    )
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
