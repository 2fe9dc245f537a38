import {
  type AnchorType,
  type Audience,
  cascade,
  checkAnchor,
  checkLockedDelete,
  checkLockedUpdate,
  CurrentPrincipal,
  EventDayId,
  type Filters,
  insertPosition,
  type ItemSchedule,
  linkedRecordNotFound,
  mergeAnchor,
  movePosition,
  moveTo,
  notFound,
  orRefuse,
  type PageRequest,
  type Principal,
  TimelineItem,
  type TimelineItemCreate,
  TimelineItemId,
  type TimelineItemListParams,
  type TimelineItemStatus,
  type TimelineItemUpdate
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { EventDayRow } from "../EventDays/EventDaysRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { byFilters, definedOnly } from "../Sql/Lists.js"
import { makeRows } from "../Sql/Resource.js"
import { Outbox } from "../Webhooks/Outbox.js"

interface ItemRow {
  readonly id: string
  readonly eventDayId: string
  readonly title: string
  readonly description: string | null
  readonly categoryId: string | null
  readonly sortOrder: number
  readonly trackId: string | null
  readonly requestedStartTime: string | null
  readonly durationMinutes: number
  readonly bufferBeforeMinutes: number
  readonly bufferAfterMinutes: number
  readonly travelTimeMinutes: number
  readonly locked: boolean
  readonly anchorType: AnchorType
  readonly anchorKey: string | null
  readonly location: string | null
  readonly visibleTo: ReadonlyArray<Audience>
  readonly vendorIds: ReadonlyArray<string>
  readonly status: TimelineItemStatus
  readonly createdAt: Date
  readonly updatedAt: Date
}

const UNSCHEDULED: ItemSchedule = { startsAt: null, endsAt: null, startTime: null, endTime: null, conflicts: [] }

const toItem = (row: ItemRow, schedule: ItemSchedule | undefined) => {
  const s = schedule ?? UNSCHEDULED
  return new TimelineItem({
    id: TimelineItemId.make(row.id, { disableChecks: true }),
    eventDayId: EventDayId.make(row.eventDayId, { disableChecks: true }),
    title: row.title,
    description: row.description,
    categoryId: row.categoryId,
    sortOrder: row.sortOrder,
    trackId: row.trackId,
    requestedStartTime: row.requestedStartTime,
    durationMinutes: row.durationMinutes,
    bufferBeforeMinutes: row.bufferBeforeMinutes,
    bufferAfterMinutes: row.bufferAfterMinutes,
    travelTimeMinutes: row.travelTimeMinutes,
    locked: row.locked,
    anchorType: row.anchorType,
    anchorKey: row.anchorKey,
    location: row.location,
    visibleTo: row.visibleTo,
    vendorIds: row.vendorIds,
    status: row.status,
    startsAt: s.startsAt === null ? null : new Date(s.startsAt),
    endsAt: s.endsAt === null ? null : new Date(s.endsAt),
    startTime: s.startTime,
    endTime: s.endTime,
    conflicts: s.conflicts,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })
}

/** The cascade input of a day. */
const cascadeDay = (day: EventDayRow) => ({
  date: day.date,
  timeZone: day.timeZone,
  startTime: day.startTime,
  keyMoments: day.keyMoments,
  venue: { latitude: day.venueLatitude, longitude: day.venueLongitude }
})

/** The day's order, as the database keeps it. */
const DAY_ORDER = "sort_order, created_at, id"

const makeTimelineItemsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox

  /** The schedules of the given days, by item id: each day's cascade over all its items. */
  const schedulesOf = (principal: Principal, dayIds: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const schedules = new Map<string, ItemSchedule>()
      if (dayIds.length === 0) return schedules
      const [days, items] = yield* Effect.all([
        fast.rows<EventDayRow>(`SELECT * FROM event_days WHERE organization_id = $1 AND id = ANY ($2::uuid[])`, [principal.organizationId, dayIds]),
        fast.rows<ItemRow>(
          `SELECT * FROM timeline_items WHERE organization_id = $1 AND event_day_id = ANY ($2::uuid[]) ORDER BY ${DAY_ORDER}`,
          [principal.organizationId, dayIds]
        )
      ])
      for (const day of days) {
        const dayItems = items.filter((item) => item.eventDayId === day.id)
        for (const [id, schedule] of cascade(cascadeDay(day), dayItems)) schedules.set(id, schedule)
      }
      return schedules
    })

  /** Items with their computed times (each day computed whole). */
  const withSchedules = (principal: Principal, rows: ReadonlyArray<ItemRow>) =>
    Effect.map(
      schedulesOf(principal, [...new Set(rows.map((row) => row.eventDayId))]),
      (schedules) => rows.map((row) => toItem(row, schedules.get(row.id)))
    )

  const rows = yield* makeRows<ItemRow>("timeline_item_rows", "timeline item")

  /** A page of items in the day's order; times and conflicts come from the cascade of each whole day. */
  const list = (filters: Filters<typeof TimelineItemListParams>, page: PageRequest) =>
    Effect.gen(function*() {
      const { pagination, rows: found } = yield* rows.page(byFilters(filters), page, "day_date, event_day_id, sort_order, created_at, id")
      return { data: yield* withSchedules(yield* CurrentPrincipal, found), pagination }
    }).pipe(Effect.orDie)

  const findItem = (principal: Principal, id: string, forUpdate = false) =>
    Effect.map(
      fast.rows<ItemRow>(
        `SELECT * FROM timeline_items WHERE organization_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`,
        [principal.organizationId, id]
      ),
      (rows) => rows[0]
    )

  const get = (id: TimelineItemId) =>
    Effect.gen(function*() {
      const row = yield* rows.one(id)
      const [item] = yield* Effect.orDie(withSchedules(yield* CurrentPrincipal, [row]))
      return item
    })

  const lockDay = (principal: Principal, dayId: string) =>
    Effect.gen(function*() {
      const [day] = yield* fast.rows<EventDayRow>(
        `SELECT * FROM event_days WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
        [principal.organizationId, dayId]
      )
      if (day === undefined) return undefined
      const [count] = yield* fast.rows<{ readonly n: number }>(
        `SELECT count(*)::int AS n FROM timeline_items WHERE organization_id = $1 AND event_day_id = $2`,
        [principal.organizationId, dayId]
      )
      return { day, count: count.n }
    })

  /** Renumbers a day densely with `id` at `position` (the others keep their order; Order.ts's rule). */
  const move = (principal: Principal, dayId: string, id: string, position: number) =>
    Effect.gen(function*() {
      const ordered = yield* fast.rows<{ readonly id: string }>(
        `SELECT id FROM timeline_items WHERE organization_id = $1 AND event_day_id = $2 ORDER BY ${DAY_ORDER}`,
        [principal.organizationId, dayId]
      )
      const ids = moveTo(ordered.map((row) => row.id), id, position)
      yield* fast.rows(
        `UPDATE timeline_items t SET sort_order = u.n - 1
         FROM unnest($2::uuid[]) WITH ORDINALITY AS u (id, n)
         WHERE t.organization_id = $1 AND t.id = u.id AND t.sort_order <> u.n - 1`,
        [principal.organizationId, ids]
      )
    })

  /** The item as the API returns it, after a write in this transaction. */
  const reread = (principal: Principal, id: string) =>
    Effect.gen(function*() {
      const row = yield* findItem(principal, id)
      if (row === undefined) return yield* Effect.die(new Error(`timeline item ${id} vanished`))
      const [item] = yield* withSchedules(principal, [row])
      return item
    })

  const create = (principal: Principal, input: TimelineItemCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const locked = yield* lockDay(principal, input.eventDayId)
        if (locked === undefined) return yield* Effect.fail(linkedRecordNotFound("eventDayId", "event day"))
        const position = insertPosition(input.sortOrder, locked.count)
        yield* fast.rows(
          `UPDATE timeline_items SET sort_order = sort_order + 1
           WHERE organization_id = $1 AND event_day_id = $2 AND sort_order >= $3`,
          [principal.organizationId, input.eventDayId, position]
        )
        const id = randomUUID()
        // vendor_ids is cast: a string array is bound as text[], which PostgreSQL does not assign to uuid[].
        yield* fast.rows(
          `INSERT INTO timeline_items (id, organization_id, event_day_id, title, description, category_id, sort_order,
             track_id, requested_start_time, duration_minutes, buffer_before_minutes, buffer_after_minutes,
             travel_time_minutes, locked, anchor_type, anchor_key, location, visible_to, vendor_ids, status,
             created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::uuid[], $20, $21, $21)`,
          [
            id,
            principal.organizationId,
            input.eventDayId,
            input.title,
            input.description ?? null,
            input.categoryId ?? null,
            position,
            input.trackId ?? null,
            input.requestedStartTime ?? null,
            input.durationMinutes,
            input.bufferBeforeMinutes ?? 0,
            input.bufferAfterMinutes ?? 0,
            input.travelTimeMinutes ?? 0,
            input.locked ?? false,
            input.anchorType ?? "float",
            input.anchorKey ?? null,
            input.location ?? null,
            input.visibleTo ?? ["master"],
            input.vendorIds ?? [],
            input.status ?? "pending",
            at
          ]
        )
        const item = yield* reread(principal, id)
        yield* outbox.created(principal, "timeline_item", item)
        return item
      })
    ).pipe(refuseViolations)

  /** The item's row locked, with its day locked first (the order every write of a day takes). */
  const lockItem = (principal: Principal, id: string) =>
    Effect.gen(function*() {
      const found = yield* findItem(principal, id)
      if (found === undefined) return undefined
      const day = yield* lockDay(principal, found.eventDayId)
      const row = yield* findItem(principal, id, true)
      return day === undefined || row === undefined ? undefined : { row, count: day.count }
    })

  const update = (principal: Principal, id: TimelineItemId, input: TimelineItemUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const locked = yield* lockItem(principal, id)
        if (locked === undefined) return yield* Effect.fail(notFound("timeline item"))
        const current = locked.row
        yield* orRefuse(checkLockedUpdate(current, input))
        const anchor = mergeAnchor(current, input)
        yield* orRefuse(checkAnchor(anchor))
        const { sortOrder, anchorType: _t, anchorKey: _k, requestedStartTime: _r, ...rest } = input
        const fields = {
          ...definedOnly(rest),
          ...(anchor.anchorType === current.anchorType ? {} : { anchorType: anchor.anchorType }),
          ...(anchor.anchorKey === current.anchorKey ? {} : { anchorKey: anchor.anchorKey }),
          ...(anchor.requestedStartTime === current.requestedStartTime ? {} : { requestedStartTime: anchor.requestedStartTime })
        }
        const target = sortOrder === undefined ? current.sortOrder : movePosition(sortOrder, locked.count)
        const moves = target !== current.sortOrder
        if (Object.keys(fields).length === 0 && !moves) return yield* withSchedules(principal, [current]).pipe(Effect.map(([item]) => item))
        const [before] = yield* withSchedules(principal, [current])
        if (moves) yield* move(principal, current.eventDayId, id, target)
        // vendor_ids is set apart, with a cast: a string array is bound as text[] (see create).
        const { vendorIds, ...columns } = fields
        yield* sql`UPDATE timeline_items SET ${sql.update({ ...columns, updatedAt: new Date(yield* Clock.currentTimeMillis) })}${
          vendorIds === undefined ? sql.literal("") : sql`, vendor_ids = ${vendorIds}::uuid[]`
        } WHERE organization_id = ${principal.organizationId} AND id = ${id}`
        const after = yield* reread(principal, id)
        yield* outbox.updated(principal, "timeline_item", before, after)
        return after
      })
    ).pipe(refuseViolations)

  const remove = (principal: Principal, id: TimelineItemId) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const locked = yield* lockItem(principal, id)
        if (locked === undefined) return yield* Effect.fail(notFound("timeline item"))
        const current = locked.row
        yield* orRefuse(checkLockedDelete(current))
        const [before] = yield* withSchedules(principal, [current])
        yield* fast.rows(`DELETE FROM timeline_items WHERE organization_id = $1 AND id = $2`, [principal.organizationId, id])
        yield* fast.rows(
          `UPDATE timeline_items SET sort_order = sort_order - 1
           WHERE organization_id = $1 AND event_day_id = $2 AND sort_order > $3`,
          [principal.organizationId, current.eventDayId, current.sortOrder]
        )
        yield* outbox.deleted(principal, "timeline_item", before)
      })
    ).pipe(refuseViolations)

  return { list, get, create, update, remove } as const
})

/**
 * Timeline items, always scoped by the caller's organization. Their times are never stored: every
 * answer runs the domain's cascade over the item's whole day. Every write locks the day's row first, so
 * that writes to one day (reorders included) happen one after the other and sort_order stays dense.
 */
export class TimelineItemsRepo extends Context.Service<TimelineItemsRepo, Effect.Success<typeof makeTimelineItemsRepo>>()("@bizops/server/TimelineItemsRepo") {
  static readonly layer = Layer.effect(TimelineItemsRepo, makeTimelineItemsRepo)
}
