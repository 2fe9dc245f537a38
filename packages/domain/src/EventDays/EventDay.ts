import { Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { CLOCK_TIME, isTimeZone } from "../Common/LocalTime.js"
import { DateOnly, DateTime, generatedAs, MaxString, Uuid } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"

export const EventDayId = Uuid.pipe(Schema.brand("EventDayId"))
export type EventDayId = typeof EventDayId.Type

/** A clock time of a day, `HH:MM`, 24-hour, in the event day's time zone. */
export const ClockTime = Schema.String.check(
  Schema.isPattern(CLOCK_TIME, { message: "must be a time HH:MM (24-hour, 00:00 to 23:59)" })
).annotate({ description: "HH:MM, 24-hour, in the event day's time zone" })

/** An IANA time zone name, for example Europe/Berlin. */
export const TimeZone = Schema.String.check(
  Schema.makeFilter(isTimeZone, {
    message: "must be an IANA time zone name, for example Europe/Berlin or UTC",
    ...generatedAs(/^(UTC|Europe\/Berlin|America\/New_York|Asia\/Tokyo|Australia\/Lord_Howe)$/)
  })
).annotate({ description: "An IANA time zone name" })

/** The name of a key moment: lowercase letters, digits and dashes, 1 to 50. */
export const KeyMomentName = Schema.String.check(
  Schema.isPattern(/^[a-z0-9-]{1,50}$/u, { message: "must be 1 to 50 lowercase letters, digits or dashes" })
)

export const MAX_KEY_MOMENTS = 50

export const KeyMoments = Schema.Record(KeyMomentName, ClockTime).check(
  Schema.isMaxProperties(MAX_KEY_MOMENTS, { message: `must have at most ${MAX_KEY_MOMENTS} key moments` })
).annotate({ description: "Named pivots of the day: a key of lowercase letters, digits and dashes → HH:MM" })
export type KeyMoments = typeof KeyMoments.Type

const degrees = (max: number) => Schema.Finite.check(Schema.isBetween({ minimum: -max, maximum: max }))

export const Venue = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(degrees(90)),
  longitude: Schema.NullOr(degrees(180))
}).annotate({ identifier: "Venue" })
export type Venue = typeof Venue.Type

const coordinate = (max: number) =>
  Schema.Number.check(
    Schema.isFinite({ message: "must be a finite number" }),
    Schema.isBetween({ minimum: -max, maximum: max }, { message: `must be between -${max} and ${max}` })
  )

export const VenueInput = Schema.Struct({
  name: Schema.optionalKey(Schema.NullOr(MaxString(200))),
  latitude: Schema.optionalKey(Schema.NullOr(coordinate(90))),
  longitude: Schema.optionalKey(Schema.NullOr(coordinate(180)))
}).check(
  Schema.makeFilter((v) =>
    (v.latitude == null) === (v.longitude == null) || { path: ["longitude"], issue: "latitude and longitude go together: give both or neither" }
  )
).annotate({ identifier: "VenueInput" })
export type VenueInput = typeof VenueInput.Type

export const NO_VENUE: Venue = { name: null, latitude: null, longitude: null }

export const DEFAULT_TIME_ZONE = "UTC"
export const DEFAULT_START_TIME = "09:00"

export class EventDay extends Schema.Class<EventDay>("EventDay")({
  id: EventDayId,
  projectId: Schema.NullOr(ProjectId),
  date: DateOnly,
  timeZone: Schema.String,
  startTime: ClockTime,
  keyMoments: KeyMoments,
  venue: Venue,
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

export const EventDayCreate = Schema.Struct({
  date: DateOnly,
  projectId: Schema.optionalKey(Schema.NullOr(ProjectId)),
  timeZone: Schema.optionalKey(TimeZone),
  startTime: Schema.optionalKey(ClockTime),
  keyMoments: Schema.optionalKey(KeyMoments),
  venue: Schema.optionalKey(VenueInput)
}).annotate({ identifier: "EventDayCreate", examples: [{ date: "2027-06-19", timeZone: "Europe/Paris", startTime: "14:00", keyMoments: { ceremony: "15:00" } }] })
export type EventDayCreate = typeof EventDayCreate.Type

/** The update body. `keyMoments` replaces the whole object; `venue` replaces the whole venue. */
export const EventDayUpdate = Schema.Struct({
  date: Schema.optionalKey(DateOnly),
  projectId: Schema.optionalKey(Schema.NullOr(ProjectId)),
  timeZone: Schema.optionalKey(TimeZone),
  startTime: Schema.optionalKey(ClockTime),
  keyMoments: Schema.optionalKey(KeyMoments),
  venue: Schema.optionalKey(VenueInput)
}).annotate({ identifier: "EventDayUpdate", examples: [{ startTime: "13:30" }] })
export type EventDayUpdate = typeof EventDayUpdate.Type

/** A venue from its input: the fields not given are null. */
export const venueOf = (input: VenueInput): Venue => ({
  name: input.name ?? null,
  latitude: input.latitude ?? null,
  longitude: input.longitude ?? null
})

export const EventDayListParams = Schema.Struct({
  ...ListParams,
  projectId: Schema.optionalKey(ProjectId)
})

export const EventDayList = ListOf(EventDay, "EventDayList")
