import {
  DEFAULT_START_TIME,
  DEFAULT_TIME_ZONE,
  EventDay,
  type EventDayCreate,
  EventDayId,
  type EventDayListParams,
  type EventDayUpdate,
  type Filters,
  NO_VENUE,
  type PageRequest,
  venueOf
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { byFilters } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { RowOf } from "../Sql/Rows.js"

export type EventDayRow = Omit<RowOf<typeof EventDay>, "venue"> & {
  readonly venueName: string | null
  readonly venueLatitude: number | null
  readonly venueLongitude: number | null
}

export const toEventDay = (row: EventDayRow) =>
  new EventDay({ ...row, venue: { name: row.venueName, latitude: row.venueLatitude, longitude: row.venueLongitude } }, { disableChecks: true })

/** The columns of a venue. */
const venueColumns = (venue: { readonly name: string | null; readonly latitude: number | null; readonly longitude: number | null }) => ({
  venueName: venue.name,
  venueLatitude: venue.latitude,
  venueLongitude: venue.longitude
})

const makeEventDaysRepo = Effect.gen(function*() {
  const days = yield* makeResource({ table: "event_days", resource: "event_day", what: "event day", toResource: toEventDay })

  const list = (filters: Filters<typeof EventDayListParams>, page: PageRequest) => days.list(byFilters(filters), page)

  const create = (input: EventDayCreate) =>
    days.create(() =>
      Effect.succeed({
        projectId: input.projectId ?? null,
        date: input.date,
        timeZone: input.timeZone ?? DEFAULT_TIME_ZONE,
        startTime: input.startTime ?? DEFAULT_START_TIME,
        keyMoments: JSON.stringify(input.keyMoments ?? {}),
        ...venueColumns(input.venue === undefined ? NO_VENUE : venueOf(input.venue))
      })
    )

  const update = (id: EventDayId, input: EventDayUpdate) =>
    days.update(id, () =>
      Effect.succeed({
        date: input.date,
        projectId: input.projectId,
        timeZone: input.timeZone,
        startTime: input.startTime,
        keyMoments: input.keyMoments === undefined ? undefined : JSON.stringify(input.keyMoments),
        ...(input.venue === undefined ? {} : venueColumns(venueOf(input.venue)))
      })
    )

  return { list, get: days.get, create, update, remove: days.remove } as const
})

/** Event days, always scoped by the caller's organization. */
export class EventDaysRepo extends Context.Service<EventDaysRepo, Effect.Success<typeof makeEventDaysRepo>>()("@bizops/server/EventDaysRepo") {
  static readonly layer = Layer.effect(EventDaysRepo, makeEventDaysRepo)
}
