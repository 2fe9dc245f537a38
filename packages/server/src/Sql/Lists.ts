import { offsetOf, type PageRequest, paginationMeta } from "@bizops/domain"
import { Effect } from "effect"
import type { FastQuery } from "./Fast.js"

/**
 * A condition of a list query: SQL with one `?` where its value goes. The SQL comes from our code,
 * never from a request; the value is always a parameter.
 */
export type Condition = readonly [sql: string, value: unknown]

/** The conditions whose value is defined (the filters a request gave). */
export const conditions = (...all: ReadonlyArray<Condition>): ReadonlyArray<Condition> =>
  all.filter(([, value]) => value !== undefined)

/**
 * One page of a table's rows that match every condition, newest first (createdAt, then id,
 * descending) unless an order is given, with the true total: the page, then the count, each with the cheapest plan PostgreSQL has
 * for it (an index scan that stops at LIMIT; a count over the index). Measured: side by side (two
 * fibers) cost more CPU than one after the other; one statement with count(*) OVER () costs about
 * 10% less here but reads every matching row on every page, which grows with the organization.
 */
export const listPage = <Row extends object>(
  fast: FastQuery,
  table: string,
  where: ReadonlyArray<Condition>,
  page: PageRequest,
  order = "created_at DESC, id DESC"
) => {
  const clause = where.map(([sql], i) => sql.replace("?", `$${i + 1}`)).join(" AND ")
  const values = where.map(([, value]) => value)
  const n = values.length
  return Effect.map(
    Effect.all([
      fast.rows<Row>(
        `SELECT * FROM ${table} WHERE ${clause} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...values, page.pageSize, offsetOf(page)]
      ),
      fast.rows<{ readonly n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${clause}`, values)
    ]),
    ([rows, count]) => ({ rows, pagination: paginationMeta(page, count[0]?.n ?? 0) })
  )
}

/** One row of a table by organization and id; `FOR UPDATE` inside a transaction that will change it. */
export const findRow = <Row extends object>(fast: FastQuery, table: string, organizationId: string, id: string, forUpdate = false) =>
  Effect.map(
    fast.rows<Row>(`SELECT * FROM ${table} WHERE organization_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [organizationId, id]),
    (rows) => rows[0]
  )

/** Drops the keys whose value is undefined (fields a PATCH body did not name). */
export const definedOnly = <T extends Record<string, unknown>>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>

/** camelCase → snake_case, as the client names columns. */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/**
 * A list's filters as conditions: `clientId` is `client_id = ?`, `updatedSince` is `updated_at >= ?`; the
 * page asked for and the filters a request did not give are left out. The names are the fields of the
 * list query's schema (a decoded query has no others), never a request's text; one that is not a plain
 * camelCase name is a defect.
 */
export const byFilters = (filters: object): ReadonlyArray<Condition> =>
  Object.entries(filters).flatMap(([name, value]): Array<Condition> => {
    if (value === undefined || name === "page" || name === "pageSize") return []
    if (name === "updatedSince") return [["updated_at >= ?", value]]
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) throw new Error(`byFilters: ${name} is not a filter name`)
    return [[`${snakeCase(name)} = ?`, value]]
  })
