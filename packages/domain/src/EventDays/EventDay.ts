import { Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { CLOCK_TIME, isTimeZone } from "../Common/LocalTime.js"
import { DateOnly, DateTime, MaxString, strict, Uuid } from "../Common/Values.js"
import { ProjectId } from "../Projects/Project.js"

export const EventDayId = Uuid.pipe(Schema.brand("EventDayId"))
export type EventDayId = typeof EventDayId.Type

/** A clock time of a day, `HH:MM`, 24-hour, in the event day's time zone. */
export const ClockTime = Schema.String.pipe(
  Schema.pattern(CLOCK_TIME, { message: () => "must be a time HH:MM (24-hour, 00:00 to 23:59)" })
).annotations({
  description: "HH:MM, 24-hour, in the event day's time zone",
  arbitrary: () => (fc) =>
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
})

/** An IANA time zone name, for example Europe/Berlin. */
export const TimeZone = Schema.String.pipe(
  Schema.filter(isTimeZone, { message: () => "must be an IANA time zone name, for example Europe/Berlin or UTC" })
).annotations({
  description: "An IANA time zone name",
  arbitrary: () => (fc) => fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Lord_Howe")
})

/** The name of a key moment: lowercase letters, digits and dashes, 1 to 50. */
export const KeyMomentName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9-]{1,50}$/, { message: () => "must be 1 to 50 lowercase letters, digits or dashes" })
)

export const MAX_KEY_MOMENTS = 50

export const KeyMoments = Schema.Record({ key: KeyMomentName, value: ClockTime }).pipe(
  Schema.filter((moments) => Object.keys(moments).length <= MAX_KEY_MOMENTS, {
    message: () => `must have at most ${MAX_KEY_MOMENTS} key moments`
  })
).annotations({
  description: "Named pivots of the day: a key of lowercase letters, digits and dashes → HH:MM",
  arbitrary: () => (fc) =>
    fc.dictionary(fc.constantFrom("ceremony", "first-dance", "cake", "speeches", "exit"), fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`))
})
export type KeyMoments = typeof KeyMoments.Type

const degrees = (max: number) =>
  Schema.Finite.pipe(Schema.between(-max, max)).annotations({
    arbitrary: () => (fc) => fc.integer({ min: -max * 1_000_000, max: max * 1_000_000 }).map((n) => n === 0 ? 0 : n / 1_000_000)
  })

export const Venue = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(degrees(90)),
  longitude: Schema.NullOr(degrees(180))
}).annotations({ identifier: "Venue" })
export type Venue = typeof Venue.Type

export const VenueInput = Schema.Struct({
  name: Schema.optional(Schema.NullOr(MaxString(200))),
  latitude: Schema.optional(Schema.NullOr(Schema.Number.pipe(
    Schema.finite({ message: () => "must be a finite number" }),
    Schema.between(-90, 90, { message: () => "must be between -90 and 90" })
  ))),
  longitude: Schema.optional(Schema.NullOr(Schema.Number.pipe(
    Schema.finite({ message: () => "must be a finite number" }),
    Schema.between(-180, 180, { message: () => "must be between -180 and 180" })
  )))
}).pipe(
  Schema.filter((v) =>
    (v.latitude == null) === (v.longitude == null) || { path: ["longitude"], message: "latitude and longitude go together: give both or neither" }
  ),
  Schema.annotations({ ...strict, identifier: "VenueInput" })
)
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
  projectId: Schema.optional(Schema.NullOr(ProjectId)),
  timeZone: Schema.optional(TimeZone),
  startTime: Schema.optional(ClockTime),
  keyMoments: Schema.optional(KeyMoments),
  venue: Schema.optional(VenueInput)
}).annotations({ ...strict, identifier: "EventDayCreate" })
export type EventDayCreate = typeof EventDayCreate.Type

/** The update body. `keyMoments` replaces the whole object; `venue` replaces the whole venue. */
export const EventDayUpdate = Schema.Struct({
  date: Schema.optional(DateOnly),
  projectId: Schema.optional(Schema.NullOr(ProjectId)),
  timeZone: Schema.optional(TimeZone),
  startTime: Schema.optional(ClockTime),
  keyMoments: Schema.optional(KeyMoments),
  venue: Schema.optional(VenueInput)
}).annotations({ ...strict, identifier: "EventDayUpdate" })
export type EventDayUpdate = typeof EventDayUpdate.Type

/** A venue from its input: the fields not given are null. */
export const venueOf = (input: VenueInput): Venue => ({
  name: input.name ?? null,
  latitude: input.latitude ?? null,
  longitude: input.longitude ?? null
})

export const EventDayListParams = Schema.Struct({
  ...ListParams,
  projectId: Schema.optional(ProjectId)
})

export const EventDayList = ListOf(EventDay, "EventDayList")
