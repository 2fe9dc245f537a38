import { Result, Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { Refusal } from "../Common/Refusal.js"
import { BoundedString, DateTime, MaxString, Uuid } from "../Common/Values.js"
import { ClockTime, EventDayId } from "../EventDays/EventDay.js"

export const TimelineItemId = Uuid.pipe(Schema.brand("TimelineItemId"))
export type TimelineItemId = typeof TimelineItemId.Type

export const AnchorType = Schema.Literals(["float", "fixed", "key-moment", "golden-hour", "none"])
export type AnchorType = typeof AnchorType.Type

export const TimelineItemStatus = Schema.Literals(["pending", "in-progress", "completed", "skipped"])
export type TimelineItemStatus = typeof TimelineItemStatus.Type

export const Audience = Schema.Literals(["master", "client", "vendor", "team"])
export type Audience = typeof Audience.Type

/** The anchor keys of a golden-hour item: what of the sun it is pinned to. */
export const SUN_ANCHORS = ["sunset", "sunrise", "golden-hour-evening", "golden-hour-morning"] as const
export type SunAnchor = typeof SUN_ANCHORS[number]

export const ConflictCode = Schema.Literals(["overlap", "outside_day", "unknown_key_moment", "missing_venue_coordinates", "no_sun_event"])
export type ConflictCode = typeof ConflictCode.Type

export const ScheduleConflict = Schema.Struct({
  code: ConflictCode,
  message: Schema.String,
  withItemId: Schema.optionalKey(Uuid.annotate({ description: "The other item of an overlap" }))
}).annotate({ identifier: "ScheduleConflict", description: "A clash or an anchor whose time cannot be known; nothing is moved to resolve it" })
export type ScheduleConflict = typeof ScheduleConflict.Type

/** Minutes of a block's parts: whole minutes, 0 to 1440 (a duration is more than 0). */
export const MAX_MINUTES = 1440
const minutes = (minimum: number) => {
  const message = `must be a whole number of minutes from ${minimum} to ${MAX_MINUTES}`
  return Schema.Number.annotate({ message }).check(
    Schema.isInt({ message }),
    Schema.isBetween({ minimum, maximum: MAX_MINUTES }, { message })
  )
}
const Minutes = minutes(0)
const Duration = minutes(1)

const HHMM_NULL = Schema.NullOr(Schema.String)

export class TimelineItem extends Schema.Class<TimelineItem>("TimelineItem")({
  id: TimelineItemId,
  eventDayId: EventDayId,
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  categoryId: Schema.NullOr(Uuid),
  sortOrder: Schema.Int,
  trackId: Schema.NullOr(Schema.String),
  requestedStartTime: Schema.NullOr(ClockTime),
  durationMinutes: Schema.Int,
  bufferBeforeMinutes: Schema.Int,
  bufferAfterMinutes: Schema.Int,
  travelTimeMinutes: Schema.Int,
  locked: Schema.Boolean,
  anchorType: AnchorType,
  anchorKey: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  visibleTo: Schema.Array(Audience),
  vendorIds: Schema.Array(Uuid),
  status: TimelineItemStatus,
  startsAt: Schema.NullOr(DateTime).annotate({ description: "Computed: when the item starts (null when skipped)" }),
  endsAt: Schema.NullOr(DateTime).annotate({ description: "Computed: startsAt + durationMinutes" }),
  startTime: HHMM_NULL.annotate({ description: "Computed: startsAt as HH:MM in the day's time zone" }),
  endTime: HHMM_NULL.annotate({ description: "Computed: endsAt as HH:MM in the day's time zone" }),
  conflicts: Schema.Array(ScheduleConflict),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** The anchor fields of an item, as the cascade and the checks read them. */
export interface AnchorFields {
  readonly anchorType: AnchorType
  readonly anchorKey: string | null
  readonly requestedStartTime: string | null
}

/**
 * Which anchor fields go with which anchor type: requestedStartTime is required for, and accepted only
 * with, fixed; anchorKey is required for key-moment (a key-moment name) and golden-hour (sunset, sunrise,
 * golden-hour-evening, golden-hour-morning), and accepted only with them. Gives the field and the reason
 * of a refusal.
 */
export const checkAnchor = (item: AnchorFields): Result.Result<void, Refusal> => {
  const refuse = (field: string, message: string) => Result.fail(Refusal.invalid([field], message))
  if (item.anchorType === "fixed" && item.requestedStartTime === null) return refuse("requestedStartTime", "is required when anchorType is fixed")
  if (item.anchorType !== "fixed" && item.requestedStartTime !== null) return refuse("requestedStartTime", "is accepted only when anchorType is fixed")
  switch (item.anchorType) {
    case "key-moment":
      if (item.anchorKey === null) return refuse("anchorKey", "is required when anchorType is key-moment")
      if (!/^[a-z0-9-]{1,50}$/.test(item.anchorKey)) return refuse("anchorKey", "must be a key moment name: 1 to 50 lowercase letters, digits or dashes")
      return Result.void
    case "golden-hour":
      if (item.anchorKey === null) return refuse("anchorKey", `is required when anchorType is golden-hour (${SUN_ANCHORS.join(", ")})`)
      if (!(SUN_ANCHORS as ReadonlyArray<string>).includes(item.anchorKey)) return refuse("anchorKey", `must be one of ${SUN_ANCHORS.join(", ")}`)
      return Result.void
    default:
      return item.anchorKey === null ? Result.void : refuse("anchorKey", "is accepted only when anchorType is key-moment or golden-hour")
  }
}

const noRepeats = (message: string) =>
  Schema.makeFilter((a: ReadonlyArray<string>) => new Set(a).size === a.length, { message })
const VisibleTo = Schema.Array(Audience).check(noRepeats("must not name an audience twice"))
const VendorIds = Schema.Array(Uuid).check(
  Schema.isMaxLength(50, { message: "must have at most 50 vendors" }),
  noRepeats("must not name a vendor twice")
)
const TrackId = BoundedString(1, 50)
const AnchorKey = Schema.String.check(Schema.isMaxLength(50, { message: "must be at most 50 characters" }))

const editable = {
  title: BoundedString(1, 200),
  description: Schema.NullOr(MaxString(5000)),
  categoryId: Schema.NullOr(Uuid),
  sortOrder: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: "must be 0 or more" })),
  trackId: Schema.NullOr(TrackId),
  requestedStartTime: Schema.NullOr(ClockTime),
  durationMinutes: Duration,
  bufferBeforeMinutes: Minutes,
  bufferAfterMinutes: Minutes,
  travelTimeMinutes: Minutes,
  locked: Schema.Boolean,
  anchorType: AnchorType,
  anchorKey: Schema.NullOr(AnchorKey),
  location: Schema.NullOr(MaxString(500)),
  visibleTo: VisibleTo,
  vendorIds: VendorIds,
  status: TimelineItemStatus
}

/** The fields that create and update bodies both take as optional. */
const optionalFields = {
  description: Schema.optionalKey(editable.description),
  categoryId: Schema.optionalKey(editable.categoryId),
  sortOrder: Schema.optionalKey(editable.sortOrder),
  trackId: Schema.optionalKey(editable.trackId),
  requestedStartTime: Schema.optionalKey(editable.requestedStartTime),
  bufferBeforeMinutes: Schema.optionalKey(editable.bufferBeforeMinutes),
  bufferAfterMinutes: Schema.optionalKey(editable.bufferAfterMinutes),
  travelTimeMinutes: Schema.optionalKey(editable.travelTimeMinutes),
  locked: Schema.optionalKey(editable.locked),
  anchorType: Schema.optionalKey(editable.anchorType),
  anchorKey: Schema.optionalKey(editable.anchorKey),
  location: Schema.optionalKey(editable.location),
  visibleTo: Schema.optionalKey(editable.visibleTo),
  vendorIds: Schema.optionalKey(editable.vendorIds),
  status: Schema.optionalKey(editable.status)
}

export const TimelineItemCreate = Schema.Struct({
  eventDayId: EventDayId,
  title: editable.title,
  durationMinutes: editable.durationMinutes,
  ...optionalFields
}).annotate({ examples: [{ eventDayId: EventDayId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"), title: "Ceremony", durationMinutes: 45 }] }).check(
  Schema.makeFilter((c) => {
    const anchor = checkAnchor({ anchorType: c.anchorType ?? "float", anchorKey: c.anchorKey ?? null, requestedStartTime: c.requestedStartTime ?? null })
    return Result.isSuccess(anchor) || { path: anchor.failure.path ?? [], issue: anchor.failure.message }
  })
).annotate({ identifier: "TimelineItemCreate" })
export type TimelineItemCreate = typeof TimelineItemCreate.Type

export const TimelineItemUpdate = Schema.Struct({
  title: Schema.optionalKey(editable.title),
  durationMinutes: Schema.optionalKey(editable.durationMinutes),
  ...optionalFields
}).annotate({ identifier: "TimelineItemUpdate", examples: [{ durationMinutes: 60 }] })
export type TimelineItemUpdate = typeof TimelineItemUpdate.Type

/**
 * The anchor fields after a PATCH: the body's over the current ones. When the body changes the anchor
 * type and does not name a field the new type does not take, that field is cleared (moving a fixed
 * item to float drops its requestedStartTime).
 */
export const mergeAnchor = (
  current: AnchorFields,
  update: { readonly [K in keyof AnchorFields]?: AnchorFields[K] | undefined }
): AnchorFields => {
  const anchorType = update.anchorType ?? current.anchorType
  const changed = anchorType !== current.anchorType
  return {
    anchorType,
    requestedStartTime: update.requestedStartTime !== undefined
      ? update.requestedStartTime
      : changed && anchorType !== "fixed" ? null : current.requestedStartTime,
    anchorKey: update.anchorKey !== undefined
      ? update.anchorKey
      : changed && anchorType !== "key-moment" && anchorType !== "golden-hour" ? null : current.anchorKey
  }
}

/**
 * Whether a PATCH may change a locked item: only to unlock it (`{"locked": false}`), or a body that
 * changes nothing (`{}`, `{"locked": true}`).
 */
export const lockedAllows = (update: TimelineItemUpdate): boolean =>
  Object.entries(update).every(([key, value]) => value === undefined || key === "locked")

/** A PATCH of a locked item that `lockedAllows` does not allow: 409 record_immutable. */
export const checkLockedUpdate = (item: { readonly locked: boolean }, update: TimelineItemUpdate): Result.Result<void, Refusal> =>
  item.locked && !lockedAllows(update)
    ? Result.fail(Refusal.conflict("The item is locked; unlock it first with {\"locked\": false}", "record_immutable"))
    : Result.void

/** A locked item cannot be deleted: 409 record_immutable. */
export const checkLockedDelete = (item: { readonly locked: boolean }): Result.Result<void, Refusal> =>
  item.locked ? Result.fail(Refusal.conflict("The item is locked; unlock it before deleting it", "record_immutable")) : Result.void

export const TimelineItemListParams = Schema.Struct({
  ...ListParams,
  eventDayId: Schema.optionalKey(EventDayId),
  status: Schema.optionalKey(TimelineItemStatus)
})

export const TimelineItemList = ListOf(TimelineItem, "TimelineItemList")

