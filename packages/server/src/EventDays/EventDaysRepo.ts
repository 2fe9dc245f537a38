import {
  DEFAULT_START_TIME,
  DEFAULT_TIME_ZONE,
  EventDay,
  type EventDayCreate,
  EventDayId,
  type EventDayUpdate,
  NO_VENUE,
  notFound,
  type PageRequest,
  type Principal,
  ProjectId,
  venueOf
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { conditions, findRow, getOf, listOf } from "../Sql/Lists.js"
import { Outbox } from "../Webhooks/Outbox.js"

export interface EventDayRow {
  readonly id: string
  readonly projectId: string | null
  readonly date: string
  readonly timeZone: string
  readonly startTime: string
  readonly keyMoments: Readonly<Record<string, string>>
  readonly venueName: string | null
  readonly venueLatitude: number | null
  readonly venueLongitude: number | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const toEventDay = (row: EventDayRow) =>
  new EventDay({
    id: EventDayId.make(row.id, { disableChecks: true }),
    projectId: row.projectId === null ? null : ProjectId.make(row.projectId, { disableChecks: true }),
    date: row.date,
    timeZone: row.timeZone,
    startTime: row.startTime,
    keyMoments: row.keyMoments,
    venue: { name: row.venueName, latitude: row.venueLatitude, longitude: row.venueLongitude },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })

/** The columns of a venue. */
const venueColumns = (venue: { readonly name: string | null; readonly latitude: number | null; readonly longitude: number | null }) => ({
  venueName: venue.name,
  venueLatitude: venue.latitude,
  venueLongitude: venue.longitude
})

const makeEventDaysRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox

  const list = (
    principal: Principal,
    filters: { readonly projectId?: string | undefined; readonly updatedSince?: Date | undefined },
    page: PageRequest
  ) =>
    listOf(fast, "event_days", conditions(
      ["organization_id = ?", principal.organizationId],
      ["project_id = ?", filters.projectId],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toEventDay)

  const get = (principal: Principal, id: EventDayId) =>
    getOf(fast, "event_days", principal.organizationId, id, "event day", toEventDay)

  const create = (principal: Principal, input: EventDayCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        const venue = input.venue === undefined ? NO_VENUE : venueOf(input.venue)
        const [row] = yield* fast.rows<EventDayRow>(
          `INSERT INTO event_days (id, organization_id, project_id, date, time_zone, start_time, key_moments,
             venue_name, venue_latitude, venue_longitude, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
          [
            randomUUID(),
            principal.organizationId,
            input.projectId ?? null,
            input.date,
            input.timeZone ?? DEFAULT_TIME_ZONE,
            input.startTime ?? DEFAULT_START_TIME,
            JSON.stringify(input.keyMoments ?? {}),
            venue.name,
            venue.latitude,
            venue.longitude,
            at
          ]
        )
        const day = toEventDay(row)
        yield* outbox.created(principal, "event_day", day)
        return day
      })
    ).pipe(refuseViolations)

  const update = (principal: Principal, id: EventDayId, input: EventDayUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* findRow<EventDayRow>(fast, "event_days", principal.organizationId, id, true)
        if (current === undefined) return yield* Effect.fail(notFound("event day"))
        const values = {
          ...(input.date === undefined ? {} : { date: input.date }),
          ...(input.projectId === undefined ? {} : { projectId: input.projectId }),
          ...(input.timeZone === undefined ? {} : { timeZone: input.timeZone }),
          ...(input.startTime === undefined ? {} : { startTime: input.startTime }),
          ...(input.keyMoments === undefined ? {} : { keyMoments: JSON.stringify(input.keyMoments) }),
          ...(input.venue === undefined ? {} : venueColumns(venueOf(input.venue)))
        }
        if (Object.keys(values).length === 0) return toEventDay(current)
        const [row] = yield* sql<EventDayRow>`UPDATE event_days SET ${
          sql.update({ ...values, updatedAt: new Date(yield* Clock.currentTimeMillis) })
        } WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
        const before = toEventDay(current)
        const after = toEventDay(row)
        yield* outbox.updated(principal, "event_day", before, after)
        return after
      })
    ).pipe(refuseViolations)

  const remove = (principal: Principal, id: EventDayId) =>
    sql.withTransaction(Effect.gen(function*() {
      const rows = yield* fast.rows<EventDayRow>(
        `DELETE FROM event_days WHERE organization_id = $1 AND id = $2 RETURNING *`,
        [principal.organizationId, id]
      )
      if (rows.length === 0) return yield* Effect.fail(notFound("event day"))
      yield* outbox.deleted(principal, "event_day", toEventDay(rows[0]))
    })).pipe(refuseViolations)

  return { list, get, create, update, remove } as const
})

/** Event days, always scoped by the caller's organization. */
export class EventDaysRepo extends Context.Service<EventDaysRepo, Effect.Success<typeof makeEventDaysRepo>>()("@bizops/server/EventDaysRepo") {
  static readonly layer = Layer.effect(EventDaysRepo, makeEventDaysRepo)
}
