/**
 * The timeline cascade (issue 6): a pure function from an event day and its items to each item's
 * times and conflicts. Nothing is stored; the server runs it over the whole day on every read.
 *
 * Per track (trackId; null is the main track), items in sortOrder, then createdAt, then id:
 * 1. An item's block runs from start − bufferBefore − travelTime to start + duration + bufferAfter.
 * 2. Anchors: fixed starts at requestedStartTime; key-moment starts at the day's keyMoments[anchorKey];
 *    golden-hour with anchorKey sunset ends at sunset, sunrise starts at sunrise, golden-hour-evening
 *    starts when the evening golden hour begins, golden-hour-morning ends when the morning one ends
 *    (suncalc, for the venue on the event's date, to the nearest minute). none is read as float.
 * 3. Floats are laid back to back: forward from the end of the anchor before them; with no anchor before,
 *    backward from the start of the anchor after them when it is a key-moment or golden-hour, else
 *    forward from the day's startTime.
 * 4. An anchor whose time cannot be known gets a conflict (unknown_key_moment, missing_venue_coordinates,
 *    no_sun_event) and is laid as a float.
 * 5. Nothing moves to resolve a clash: neighbouring blocks that overlap both get an overlap conflict
 *    naming the other; a block that leaves the event's local date gets outside_day.
 * 6. Skipped items take no time and change nothing else. Tracks are independent.
 * 7. Times are instants; clock times are rendered in the day's zone (Common/LocalTime.ts).
 */
import * as SunCalc from "suncalc"
import { clockMinutes, dayClock, type DayClock } from "../Common/LocalTime.js"
import type { AnchorType, ScheduleConflict, TimelineItemStatus } from "./TimelineItem.js"

const MINUTE = 60_000

export interface CascadeDay {
  readonly date: string
  readonly timeZone: string
  readonly startTime: string
  readonly keyMoments: Readonly<Record<string, string>>
  readonly venue: { readonly latitude: number | null; readonly longitude: number | null }
}

export interface CascadeItem {
  readonly id: string
  readonly sortOrder: number
  readonly createdAt: Date
  readonly trackId: string | null
  readonly durationMinutes: number
  readonly bufferBeforeMinutes: number
  readonly bufferAfterMinutes: number
  readonly travelTimeMinutes: number
  readonly anchorType: AnchorType
  readonly anchorKey: string | null
  readonly requestedStartTime: string | null
  readonly status: TimelineItemStatus
}

/** An item's place in the day: instants in ms (null when skipped), clock times, conflicts. */
export interface ItemSchedule {
  readonly startsAt: number | null
  readonly endsAt: number | null
  readonly startTime: string | null
  readonly endTime: string | null
  readonly conflicts: ReadonlyArray<ScheduleConflict>
}

/** Where an anchor pins its item: its start or its end, at an instant; `pivot` for key-moment and golden-hour. */
interface Pin {
  readonly edge: "start" | "end"
  readonly at: number
  readonly pivot: boolean
}

/** The order of a day's items: sortOrder, then createdAt, then id. */
export const dayOrder = (a: CascadeItem, b: CascadeItem): number =>
  a.sortOrder - b.sortOrder || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const SKIPPED: ItemSchedule = { startsAt: null, endsAt: null, startTime: null, endTime: null, conflicts: [] }

type SunTimes = ReturnType<typeof SunCalc.getTimes>

/** The sun's times for the venue on the event's date, asked once per day, when an item needs them. */
const sunOf = (day: CascadeDay, clock: DayClock): () => SunTimes | undefined => {
  let times: SunTimes | undefined
  let asked = false
  return () => {
    if (!asked) {
      asked = true
      const { latitude, longitude } = day.venue
      if (latitude !== null && longitude !== null) times = SunCalc.getTimes(new Date(clock.instantOf(12 * 60)), latitude, longitude)
    }
    return times
  }
}

const toMinute = (date: Date): number => Math.round(date.getTime() / MINUTE) * MINUTE

/** Where an item's anchor pins it, or why it cannot (then it is laid as a float). */
const pinOf = (
  item: CascadeItem,
  day: CascadeDay,
  clock: DayClock,
  sun: () => SunTimes | undefined
): Pin | ScheduleConflict | undefined => {
  switch (item.anchorType) {
    case "float":
    case "none":
      return undefined
    case "fixed":
      return item.requestedStartTime === null
        ? undefined
        : { edge: "start", at: clock.instantOf(clockMinutes(item.requestedStartTime)), pivot: false }
    case "key-moment": {
      const key = item.anchorKey ?? ""
      const time = Object.hasOwn(day.keyMoments, key) ? day.keyMoments[key] : undefined
      return time === undefined
        ? { code: "unknown_key_moment", message: `The day has no key moment "${key}"; the item is laid as a float` }
        : { edge: "start", at: clock.instantOf(clockMinutes(time)), pivot: true }
    }
    case "golden-hour": {
      const times = sun()
      if (times === undefined) {
        return { code: "missing_venue_coordinates", message: "The day's venue has no coordinates, so the sun's times are unknown; the item is laid as a float" }
      }
      const [edge, event] = item.anchorKey === "sunset"
        ? ["end", times.sunset] as const
        : item.anchorKey === "sunrise"
        ? ["start", times.sunrise] as const
        : item.anchorKey === "golden-hour-evening"
        ? ["start", times.goldenHour] as const
        : item.anchorKey === "golden-hour-morning"
        ? ["end", times.goldenHourEnd] as const
        : ["start", null] as const
      return event === null || Number.isNaN(event.getTime())
        ? { code: "no_sun_event", message: `There is no ${item.anchorKey ?? "sun event"} at the venue on ${day.date}; the item is laid as a float` }
        : { edge, at: toMinute(event), pivot: true }
    }
  }
}

const isPin = (value: Pin | ScheduleConflict | undefined): value is Pin => value !== undefined && "edge" in value

/** The schedule of a day: every item's times and conflicts, by id. */
export const cascade = (day: CascadeDay, items: ReadonlyArray<CascadeItem>): ReadonlyMap<string, ItemSchedule> => {
  const clock = dayClock(day.date, day.timeZone)
  const sun = sunOf(day, clock)
  const result = new Map<string, ItemSchedule>()

  const tracks = new Map<string | null, Array<CascadeItem>>()
  for (const item of items) {
    if (item.status === "skipped") {
      result.set(item.id, SKIPPED)
      continue
    }
    const track = tracks.get(item.trackId)
    if (track === undefined) tracks.set(item.trackId, [item])
    else track.push(item)
  }

  for (const track of tracks.values()) {
    track.sort(dayOrder)
    const n = track.length
    const pins: Array<Pin | undefined> = new Array(n)
    const conflicts: Array<Array<ScheduleConflict>> = new Array(n)
    for (let i = 0; i < n; i++) {
      const pin = pinOf(track[i], day, clock, sun)
      pins[i] = isPin(pin) ? pin : undefined
      conflicts[i] = pin !== undefined && !isPin(pin) ? [pin] : []
    }

    const before = (item: CascadeItem) => (item.bufferBeforeMinutes + item.travelTimeMinutes) * MINUTE
    const after = (item: CascadeItem) => (item.durationMinutes + item.bufferAfterMinutes) * MINUTE
    const starts: Array<number> = new Array(n)
    for (let i = 0; i < n; i++) {
      const pin = pins[i]
      if (pin !== undefined) starts[i] = pin.edge === "start" ? pin.at : pin.at - track[i].durationMinutes * MINUTE
    }

    // Each run of floats between anchors.
    let i = 0
    while (i < n) {
      if (pins[i] !== undefined) {
        i++
        continue
      }
      let j = i
      while (j + 1 < n && pins[j + 1] === undefined) j++
      const next = j + 1 < n ? pins[j + 1] : undefined
      if (i > 0) {
        let cursor = starts[i - 1] + after(track[i - 1])
        for (let k = i; k <= j; k++) {
          starts[k] = cursor + before(track[k])
          cursor = starts[k] + after(track[k])
        }
      } else if (next !== undefined && next.pivot) {
        let cursor = starts[j + 1] - before(track[j + 1])
        for (let k = j; k >= i; k--) {
          starts[k] = cursor - after(track[k])
          cursor = starts[k] - before(track[k])
        }
      } else {
        let cursor = clock.instantOf(clockMinutes(day.startTime))
        for (let k = i; k <= j; k++) {
          starts[k] = cursor + before(track[k])
          cursor = starts[k] + after(track[k])
        }
      }
      i = j + 1
    }

    for (let k = 0; k < n; k++) {
      const blockStart = starts[k] - before(track[k])
      const blockEnd = starts[k] + after(track[k])
      if (blockStart < clock.dayStart || blockEnd > clock.dayEnd) {
        conflicts[k].push({ code: "outside_day", message: `The block leaves ${day.date} in ${day.timeZone}` })
      }
      if (k + 1 < n && blockEnd > starts[k + 1] - before(track[k + 1])) {
        conflicts[k].push({ code: "overlap", message: "The block overlaps the next block of its track", withItemId: track[k + 1].id })
        conflicts[k + 1].push({ code: "overlap", message: "The block overlaps the previous block of its track", withItemId: track[k].id })
      }
    }

    for (let k = 0; k < n; k++) {
      const startsAt = starts[k]
      const endsAt = startsAt + track[k].durationMinutes * MINUTE
      result.set(track[k].id, {
        startsAt,
        endsAt,
        startTime: clock.clockTimeOf(startsAt),
        endTime: clock.clockTimeOf(endsAt),
        conflicts: conflicts[k]
      })
    }
  }
  return result
}
