import { Context, Effect, String } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { Statement } from "effect/sql"

/**
 * The hot reads' way to run one statement: SQL text with `$1`-style parameters, rows camelCased at
 * the top level only (a jsonb value keeps its keys, as the rows of Effect 3's fast path did). It is
 * the SQL client's own statement (prepared by @effect/sql-pg 4 like every other), so inside a
 * transaction of that client it runs on the transaction's connection and sees its writes.
 *
 * Why it exists: on Effect 3, @effect/sql's per-statement machinery cost about 220 µs of CPU per
 * statement here (npm run bench), a third of a whole request, and this path went straight to the pg
 * pool. On Effect 4 it shares the client's machinery and costs the same per statement (measured,
 * docs/decisions.md); the interface stays for SQL text with $n parameters and top-level camelCase.
 */
export interface FastQuery {
  readonly rows: <Row extends object>(
    text: string,
    values: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
}

/** The main SQL client's fast path. */
export class FastSql extends Context.Service<FastSql, FastQuery>()("@bizops/server/FastSql") {}

/** The counter client's (synchronous_commit off), for the authenticate-and-count statement. */
export class CounterSql extends Context.Service<CounterSql, FastQuery>()("@bizops/server/CounterSql") {}

const transformRows = Statement.defaultTransforms(String.snakeToCamel, false).array

/** The fast path of a client: its statements without its (nested) name transforms, then the top-level one. */
export const makeFastQuery = (client: SqlClient.SqlClient): FastQuery => {
  const raw = client.withoutTransforms()
  return {
    rows: <Row extends object>(text: string, values: ReadonlyArray<unknown>) =>
      Effect.map(raw.unsafe<Row>(text, values), transformRows)
  }
}
