import { PgClient, PgTypes } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, Result, String } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../Config.js"
import { startEmbedded } from "./Embedded.js"
import { CounterSql, FastSql, makeFastQuery } from "./Fast.js"

/** `bigint` read as a number; written from a number (or a bigint) in the int8 binary form. */
const int8AsNumber: PgTypes.Codec<number | bigint> = {
  decode: (bytes) => Result.map(PgTypes.decode(bytes, PgTypes.OID.int8, 1), Number),
  encode: (value) =>
    typeof value === "bigint" || Number.isSafeInteger(value)
      ? PgTypes.encode(BigInt(value), PgTypes.OID.int8)
      : Result.fail(new PgTypes.CodecError({ message: `Expected a whole number for int8, received ${value}` }))
}

/** `numeric` read as a number; written from a number (or its decimal text). */
const numericAsNumber: PgTypes.Codec<number | string> = {
  decode: (bytes) => Result.map(PgTypes.decode(bytes, PgTypes.OID.numeric, 1), Number),
  encode: (value) => PgTypes.encode(typeof value === "number" ? `${value}` : value, PgTypes.OID.numeric)
}

/**
 * Column values as the API wants them: `date` stays a `YYYY-MM-DD` string (never a local-midnight
 * Date; @effect/sql-pg 4 reads it so), `bigint` (money in minor units, counts) and `numeric` become
 * numbers (@effect/sql-pg 4 reads them as bigint and string), arrays of them too. A registry per
 * client: registering on PgTypes itself would change every client of the process.
 */
export const pgTypes = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8AsNumber, { arrayOid: PgTypes.OID.int8Array })
  registry.register(PgTypes.OID.numeric, numericAsNumber, { arrayOid: PgTypes.OID.numericArray })
  return registry
}

/**
 * What both clients share. @effect/sql-pg 4 prepares every statement once per connection (by its
 * text and parameter types) and keeps the most recent ones, which Effect 3 needed Sql/Prepared.ts
 * for; 1000 covers every statement the service sends (the default is 100).
 */
const clientOptions = (url: Redacted.Redacted) => ({
  url,
  types: pgTypes(),
  transformResultNames: String.snakeToCamel,
  transformQueryNames: String.camelToSnake,
  preparedStatementCacheSize: 1000
})

/**
 * The SQL client on a connection URL, with its own pool: @effect/sql-pg's (names camelCase in
 * TypeScript, snake_case in SQL, inside jsonb values too), and its fast path for hot reads
 * (Sql/Fast.ts).
 */
export const sqlClientLayer = (url: Redacted.Redacted, options?: { readonly maxConnections?: number }) =>
  Layer.effectContext(
    Effect.map(
      PgClient.make({ ...clientOptions(url), maxConnections: options?.maxConnections ?? 20, applicationName: "bizops-api" }),
      (client) =>
        Context.make(PgClient.PgClient, client).pipe(
          Context.add(SqlClient.SqlClient, client),
          Context.add(FastSql, makeFastQuery(client))
        )
    )
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * A second client with its own pool, for the rate-limit counters. A counter needs no durability:
 * its commits do not wait for the disk (synchronous_commit off for its sessions). A crash may lose
 * the last few counts, which only lets a few more requests through. Its transactions are its own:
 * a counter statement never joins a transaction of the main client.
 */
export const counterSqlLayer = (url: Redacted.Redacted) =>
  Layer.effect(
    CounterSql,
    Effect.map(
      PgClient.make({
        ...clientOptions(url),
        maxConnections: 10,
        applicationName: "bizops-api-counter",
        startupParameters: { synchronous_commit: "off" }
      }),
      makeFastQuery
    )
  ).pipe(Layer.provide(Reactivity.layer))

/** Both clients on one database. */
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

export const DatabaseLive = Layer.unwrap(Effect.map(DatabaseUrlLive, (url) => databaseLayer(url)))

export const isEmbedded = Effect.map(AppConfig, (config) => Option.isNone(config.databaseUrl))
