import { CurrentPrincipal, notFound, type PageRequest, type Principal } from "@bizops/domain"
import { Clock, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { Outbox, type ResourceEventName } from "../Webhooks/Outbox.js"
import { refuseViolations } from "./Constraints.js"
import { FastSql } from "./Fast.js"
import { type Condition, conditions, definedOnly, findRow, listPage } from "./Lists.js"

/**
 * What a tenant-scoped resource declares: its table, how a row becomes the resource, and its name in
 * the webhook events (`client` for `client_created`, `_updated`, `_deleted`; a typo does not compile).
 */
export interface ResourceSpec<Row extends object, A extends object> {
  readonly table: string
  /** The resource's name in its events: singular, underscores (`event_day`); none when it has no events. */
  readonly resource?: ResourceEventName
  /** The record's name in a 404's message: "No such <what>". */
  readonly what: string
  readonly toResource: (row: Row) => A
}

/** The columns a write sets: camelCase names (the client snake_cases them), values as PostgreSQL takes them. */
export type Columns = Readonly<Record<string, unknown>>

/**
 * The organization's rows of a table (or view), read with the principal from `CurrentPrincipal`: a page
 * of those matching the filters, or one by id (404 `No such <what>`). `makeResource` is built on it; a
 * resource made of more than its row (an invoice's overdue flag needs today, a timeline item the
 * cascade of its day) maps the rows itself. A failing read is a defect (500).
 */
export const makeRows = <Row extends object>(table: string, what: string) =>
  Effect.gen(function*() {
    const fast = yield* FastSql
    return {
    page: (filters: ReadonlyArray<Condition>, page: PageRequest, order?: string) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        listPage<Row>(fast, table, conditions(["organization_id = ?", principal.organizationId], ...filters), page, order)).pipe(Effect.orDie),
    one: (id: string) =>
      Effect.flatMap(CurrentPrincipal, (principal) => Effect.orDie(findRow<Row>(fast, table, principal.organizationId, id))).pipe(
        Effect.flatMap((row) => row === undefined ? Effect.fail(notFound(what)) : Effect.succeed(row))
      )
    }
  })

/**
 * The one place that owns what every tenant-scoped resource does the same way: the caller's
 * organization in every statement (read from `CurrentPrincipal`, never from the request), transactions
 * and row locks, filters and `updatedSince`, pagination, row → resource, 404, constraint violations →
 * our errors (`refuseViolations`), timestamps from Effect's `Clock`, and the outbox events in the
 * transaction of the change. A repository declares its table and mapping and adds its own rules
 * through the hooks of `create` and `update`.
 */
export const makeResource = <Row extends object, A extends object>(spec: ResourceSpec<Row, A>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fast = yield* FastSql
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Runs a change in one transaction; constraint violations become the contract's 400/409. */
    const transaction = <B, E, R>(effect: Effect.Effect<B, E, R>) => refuseViolations(sql.withTransaction(effect))

    const rows = yield* makeRows<Row>(spec.table, spec.what)

    /** One page of the organization's records that match the filters (`[sql with ?, value]`; undefined values are left out). */
    const list = (filters: ReadonlyArray<Condition>, page: PageRequest, order?: string) =>
      Effect.map(rows.page(filters, page, order), ({ pagination, rows }) => ({ data: rows.map(spec.toResource), pagination }))

    /** The organization's row by id (locked `FOR UPDATE` when asked, inside a transaction). */
    const find = (principal: Principal, id: string, forUpdate = false) =>
      Effect.map(findRow<Row>(fast, spec.table, principal.organizationId, id, forUpdate), Option.fromNullishOr)

    /** The organization's record by id, or 404. */
    const get = (id: string) => Effect.map(rows.one(id), spec.toResource)

    /**
     * Inserts a record: `columns` gives its columns for a new id (it may do more in the transaction, such
     * as clear another record's flag); the id, the organization and the timestamps are added here.
     */
    const create = <E, R>(columns: (id: string, principal: Principal) => Effect.Effect<Columns, E, R>) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        transaction(Effect.gen(function*() {
          const id = randomUUID()
          const values = yield* columns(id, principal)
          const at = yield* now
          const rows = yield* sql<Row>`INSERT INTO ${sql(spec.table)} ${
            sql.insert({ ...values, id, organizationId: principal.organizationId, createdAt: at, updatedAt: at })
          } RETURNING *`
          const created = spec.toResource(rows[0])
          if (spec.resource !== undefined) yield* outbox.created(principal, spec.resource, created)
          return created
        })))

    /**
     * Changes a record under a row lock: `changes` gives the columns to set from the current row (only
     * what the request named; none leaves the record as it is, without an event). `updatedAt` is set here.
     */
    const update = <E, R>(id: string, changes: (current: Row, principal: Principal) => Effect.Effect<Columns, E, R>) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        transaction(Effect.gen(function*() {
          const current = yield* find(principal, id, true)
          if (Option.isNone(current)) return yield* Effect.fail(notFound(spec.what))
          const values = definedOnly(yield* changes(current.value, principal))
          const before = spec.toResource(current.value)
          if (Object.keys(values).length === 0) return before
          const rows = yield* sql<Row>`UPDATE ${sql(spec.table)} SET ${sql.update({ ...values, updatedAt: yield* now })}
            WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
          const updated = spec.toResource(rows[0])
          if (spec.resource !== undefined) yield* outbox.updated(principal, spec.resource, before, updated)
          return updated
        })))

    /** Deletes a record (409 while others point at it), with its `_deleted` event. */
    const remove = (id: string) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        transaction(Effect.gen(function*() {
          const rows = yield* sql<Row>`DELETE FROM ${sql(spec.table)}
            WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
          if (rows.length === 0) return yield* Effect.fail(notFound(spec.what))
          if (spec.resource !== undefined) yield* outbox.deleted(principal, spec.resource, spec.toResource(rows[0]))
        })))

    return { list, get, find, create, update, remove, transaction, now } as const
  })
