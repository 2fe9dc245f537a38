import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { offsetOf, type PageRequest, paginationMeta } from "@bizops/domain"
import { Effect } from "effect"

/**
 * One page of a table's rows that match `where`, newest first (createdAt, then id, descending),
 * with the true total for the pagination block.
 */
export const listPage = <Row extends object>(
  sql: SqlClient.SqlClient,
  table: string,
  where: ReadonlyArray<Fragment>,
  page: PageRequest
) =>
  Effect.all(
    [
      sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE ${sql.and(where)}`,
      sql<Row>`SELECT * FROM ${sql(table)} WHERE ${sql.and(where)}
        ORDER BY created_at DESC, id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}`
    ],
    { concurrency: 2 }
  ).pipe(Effect.map(([count, rows]) => ({ rows, pagination: paginationMeta(page, count[0]?.n ?? 0) })))

/** Drops the keys whose value is undefined (fields a PATCH body did not name). */
export const definedOnly = <T extends Record<string, unknown>>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>
