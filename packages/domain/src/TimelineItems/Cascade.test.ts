import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { DateTime, IANAZone } from "luxon"
import * as SunCalc from "suncalc"
import { cascade, type CascadeDay, type CascadeItem, dayOrder, type ItemSchedule } from "./Cascade.js"
import { type AnchorFields, checkAnchor, type ConflictCode, SUN_ANCHORS, type TimelineItemStatus } from "./TimelineItem.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE

// ---------------------------------------------------------------------------------------------
// Oracles: luxon and suncalc asked directly, and the rules of the issue read off the output.

const wall = (instant: number, zone: string) => DateTime.fromMillis(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm")
const hhmm = (instant: number, zone: string) => DateTime.fromMillis(instant, { zone }).toFormat("HH:mm")

/**
 * The instant the day's zone shows as `time` on the day's date: of two (the clocks fall back) the
 * later, in a gap (they spring forward) luxon's reading, moved forward by the gap.
 */
const localInstant = (day: CascadeDay, time: string): number => {
  const wanted = `${day.date}T${time}`
  const local = Date.parse(`${wanted}:00Z`)
  const zone = IANAZone.create(day.timeZone)
  const shown = [zone.offset(local - 15 * HOUR), zone.offset(local + 13 * HOUR)]
    .map((offset) => local - offset * MINUTE)
    .filter((instant) => wall(instant, day.timeZone) === wanted)
  return shown.length > 0 ? Math.max(...shown) : DateTime.fromISO(wanted, { zone: day.timeZone }).toMillis()
}

const dayBounds = (day: CascadeDay) => {
  const start = DateTime.fromISO(day.date, { zone: day.timeZone }).startOf("day")
  return { start: start.toMillis(), end: start.plus({ days: 1 }).startOf("day").toMillis() }
}

const sunTimes = (day: CascadeDay) => {
  const { latitude, longitude } = day.venue
  if (latitude === null || longitude === null) return undefined
  const noon = DateTime.fromISO(`${day.date}T12:00`, { zone: day.timeZone }).toJSDate()
  return SunCalc.getTimes(noon, latitude, longitude)
}

const toMinute = (instant: number) => Math.round(instant / MINUTE) * MINUTE

type Anchor = { readonly start: number; readonly pivot: boolean } | { readonly conflict: ConflictCode } | undefined
const ANCHOR_CONFLICTS: ReadonlyArray<ConflictCode> = ["unknown_key_moment", "missing_venue_coordinates", "no_sun_event"]

/** Where the item's anchor puts its start, or the conflict when its time cannot be known; undefined for a float. */
const anchorOf = (day: CascadeDay, item: CascadeItem): Anchor => {
  switch (item.anchorType) {
    case "float":
    case "none":
      return undefined
    case "fixed":
      return item.requestedStartTime === null ? undefined : { start: localInstant(day, item.requestedStartTime), pivot: false }
    case "key-moment": {
      const key = item.anchorKey ?? ""
      return Object.hasOwn(day.keyMoments, key) ? { start: localInstant(day, day.keyMoments[key]), pivot: true } : { conflict: "unknown_key_moment" }
    }
    case "golden-hour": {
      const times = sunTimes(day)
      if (times === undefined) return { conflict: "missing_venue_coordinates" }
      const [edge, event] = item.anchorKey === "sunset"
        ? ["end", times.sunset]
        : item.anchorKey === "sunrise"
        ? ["start", times.sunrise]
        : item.anchorKey === "golden-hour-evening"
        ? ["start", times.goldenHour]
        : ["end", times.goldenHourEnd]
      if (event === null) return { conflict: "no_sun_event" }
      const at = toMinute(event.getTime())
      return { start: edge === "start" ? at : at - item.durationMinutes * MINUTE, pivot: true }
    }
  }
}

const isPinned = (anchor: Anchor): anchor is { readonly start: number; readonly pivot: boolean } => anchor !== undefined && "start" in anchor

/** The order of the issue: sortOrder, then createdAt, then id. */
const byDayOrder = (a: CascadeItem, b: CascadeItem) =>
  a.sortOrder !== b.sortOrder
    ? a.sortOrder - b.sortOrder
    : a.createdAt.getTime() !== b.createdAt.getTime()
    ? a.createdAt.getTime() - b.createdAt.getTime()
    : a.id < b.id ? -1 : 1

interface Laid {
  readonly item: CascadeItem
  readonly schedule: ItemSchedule
  readonly anchor: Anchor
  readonly startsAt: number
  readonly endsAt: number
  readonly blockStart: number
  readonly blockEnd: number
}

/** Each track's items that take time, in the day's order, with the blocks read from the output. */
const laidTracks = (day: CascadeDay, items: ReadonlyArray<CascadeItem>, result: ReadonlyMap<string, ItemSchedule>) => {
  const tracks = new Map<string | null, Array<Laid>>()
  for (const item of [...items].sort(byDayOrder)) {
    if (item.status === "skipped") continue
    const schedule = result.get(item.id)
    if (schedule === undefined || schedule.startsAt === null || schedule.endsAt === null) throw new Error(`no times for ${item.id}`)
    const laid: Laid = {
      item,
      schedule,
      anchor: anchorOf(day, item),
      startsAt: schedule.startsAt,
      endsAt: schedule.endsAt,
      blockStart: schedule.startsAt - (item.bufferBeforeMinutes + item.travelTimeMinutes) * MINUTE,
      blockEnd: schedule.endsAt + item.bufferAfterMinutes * MINUTE
    }
    const track = tracks.get(item.trackId)
    if (track === undefined) tracks.set(item.trackId, [laid])
    else track.push(laid)
  }
  return tracks
}

/** A run of floats (and anchors laid as floats) between anchors, and which way it flows. */
interface Segment {
  readonly members: ReadonlyArray<Laid>
  readonly flow: "after-anchor" | "toward-pivot" | "from-start"
  readonly before: Laid | undefined
  readonly after: Laid | undefined
}

const segmentsOf = (track: ReadonlyArray<Laid>): Array<Segment> => {
  const segments: Array<Segment> = []
  let i = 0
  while (i < track.length) {
    if (isPinned(track[i].anchor)) {
      i++
      continue
    }
    let j = i
    while (j + 1 < track.length && !isPinned(track[j + 1].anchor)) j++
    const before = i > 0 ? track[i - 1] : undefined
    const after = j + 1 < track.length ? track[j + 1] : undefined
    const afterAnchor = after?.anchor
    const flow = before !== undefined ? "after-anchor" : isPinned(afterAnchor) && afterAnchor.pivot ? "toward-pivot" : "from-start"
    segments.push({ members: track.slice(i, j + 1), flow, before, after })
    i = j + 1
  }
  return segments
}

const plain = (result: ReadonlyMap<string, ItemSchedule>) => Object.fromEntries([...result].sort(([a], [b]) => (a < b ? -1 : 1)))

// ---------------------------------------------------------------------------------------------
// Generators.

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"] as const
const CHANGE_DAYS = ["2026-03-29", "2026-10-25", "2026-03-08", "2026-11-01", "2026-04-05", "2026-10-04"] as const
const KEYS = ["ceremony", "first-dance", "cake", "speeches", "exit"] as const

const pad2 = (n: number) => String(n).padStart(2, "0")
const clockTime = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${pad2(h)}:${pad2(m)}`)
const date = fc.oneof(
  fc.constantFrom(...CHANGE_DAYS),
  fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2032-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
)
const PLACES = [
  { latitude: 52.52, longitude: 13.405 }, // Berlin
  { latitude: 40.7128, longitude: -74.006 }, // New York
  { latitude: -31.5553, longitude: 159.0821 }, // Lord Howe Island
  { latitude: 22.5726, longitude: 88.3639 } // Kolkata
] as const
const venue = fc.oneof(
  fc.constant({ latitude: null, longitude: null }),
  fc.constantFrom(...PLACES),
  fc.record({ latitude: fc.double({ min: -66, max: 66, noNaN: true }), longitude: fc.double({ min: -180, max: 180, noNaN: true }) }),
  // Polar: a midnight sun or a polar night on many dates (no_sun_event).
  fc.record({
    latitude: fc.oneof(fc.double({ min: 68, max: 89.9, noNaN: true }), fc.double({ min: -89.9, max: -68, noNaN: true })),
    longitude: fc.double({ min: -180, max: 180, noNaN: true })
  })
)
const dayArb: fc.Arbitrary<CascadeDay> = fc.record({
  date,
  timeZone: fc.constantFrom(...ZONES),
  startTime: clockTime,
  keyMoments: fc.dictionary(fc.constantFrom(...KEYS), clockTime, { maxKeys: 5 }),
  venue
})

const anchorFields = (anchorType: AnchorFields["anchorType"], anchorKey: string | null, requestedStartTime: string | null): AnchorFields => ({
  anchorType,
  anchorKey,
  requestedStartTime
})
const anchorArb: fc.Arbitrary<AnchorFields> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(anchorFields("float", null, null)) },
  { weight: 2, arbitrary: fc.constant(anchorFields("none", null, null)) },
  { weight: 2, arbitrary: clockTime.map((time) => anchorFields("fixed", null, time)) },
  // "rehearsal" is never one of the day's key moments (unknown_key_moment).
  { weight: 2, arbitrary: fc.constantFrom(...KEYS, "rehearsal").map((key) => anchorFields("key-moment", key, null)) },
  { weight: 2, arbitrary: fc.constantFrom(...SUN_ANCHORS).map((key) => anchorFields("golden-hour", key, null)) }
)
const statusArb: fc.Arbitrary<TimelineItemStatus> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom<TimelineItemStatus>("pending", "in-progress", "completed") },
  { weight: 1, arbitrary: fc.constant<TimelineItemStatus>("skipped") }
)
const CREATED = Date.UTC(2026, 0, 1)
const fieldsArb = fc.record({
  sortOrder: fc.integer({ min: 0, max: 5 }),
  createdAt: fc.integer({ min: 0, max: 2 }).map((s) => new Date(CREATED + s * 1000)),
  trackId: fc.constantFrom<string | null>(null, "a", "b"),
  durationMinutes: fc.integer({ min: 1, max: 240 }),
  bufferBeforeMinutes: fc.integer({ min: 0, max: 60 }),
  bufferAfterMinutes: fc.integer({ min: 0, max: 60 }),
  travelTimeMinutes: fc.integer({ min: 0, max: 60 }),
  anchor: anchorArb,
  status: statusArb
})
const itemsArb: fc.Arbitrary<Array<CascadeItem>> = fc.array(fieldsArb, { maxLength: 30, size: "max" }).chain((fields) =>
  fc.uniqueArray(fc.uuid(), { minLength: fields.length, maxLength: fields.length }).map((ids) =>
    fields.map(({ anchor, ...rest }, i): CascadeItem => ({ ...rest, ...anchor, id: ids[i] }))
  )
)

const RUNS = { fastCheck: { numRuns: 200 } }

// ---------------------------------------------------------------------------------------------

describe("cascade: properties", () => {
  prop("the generated items have valid anchor fields", [itemsArb], ([items]) => {
    for (const item of items) expect(Result.isSuccess(checkAnchor(item))).toBe(true)
  })

  prop("every item gets a schedule; durations are kept; clock times are the zone's", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    expect(result.size).toBe(items.length)
    for (const item of items) {
      const s = result.get(item.id)
      if (s === undefined) throw new Error("missing")
      if (item.status === "skipped") {
        expect(s).toEqual({ startsAt: null, endsAt: null, startTime: null, endTime: null, conflicts: [] })
        continue
      }
      if (s.startsAt === null || s.endsAt === null) throw new Error("no times")
      expect(s.endsAt - s.startsAt).toBe(item.durationMinutes * MINUTE)
      expect(s.startTime).toBe(hhmm(s.startsAt, day.timeZone))
      expect(s.endTime).toBe(hhmm(s.endsAt, day.timeZone))
    }
  }, RUNS)

  prop("anchors are exact; an anchor whose time cannot be known says why", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    for (const item of items) {
      if (item.status === "skipped") continue
      const s = result.get(item.id)
      if (s === undefined) throw new Error("missing")
      const anchor = anchorOf(day, item)
      const codes = s.conflicts.map((c) => c.code).filter((code) => ANCHOR_CONFLICTS.includes(code))
      if (isPinned(anchor)) {
        expect(s.startsAt).toBe(anchor.start)
        expect(codes).toEqual([])
      } else {
        expect(codes).toEqual(anchor === undefined ? [] : [anchor.conflict])
      }
    }
  }, RUNS)

  prop("floats are laid back to back, after an anchor, toward a pivot, or from the day's start", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    const dayStart = localInstant(day, day.startTime)
    for (const track of laidTracks(day, items, result).values()) {
      for (const segment of segmentsOf(track)) {
        const { members } = segment
        for (let k = 0; k + 1 < members.length; k++) expect(members[k].blockEnd).toBe(members[k + 1].blockStart)
        switch (segment.flow) {
          case "after-anchor":
            expect(members[0].blockStart).toBe(segment.before?.blockEnd)
            break
          case "toward-pivot":
            expect(members[members.length - 1].blockEnd).toBe(segment.after?.blockStart)
            break
          case "from-start":
            expect(members[0].blockStart).toBe(dayStart)
            break
        }
      }
    }
  }, RUNS)

  prop("every overlap of neighbours is reported, every reported overlap is real; outside_day exactly when the block leaves the date", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    const bounds = dayBounds(day)
    const expected = new Map<string, Array<string>>()
    for (const track of laidTracks(day, items, result).values()) {
      for (const laid of track) expected.set(laid.item.id, [])
      for (let k = 0; k + 1 < track.length; k++) {
        if (track[k].blockEnd > track[k + 1].blockStart) {
          expected.get(track[k].item.id)?.push(track[k + 1].item.id)
          expected.get(track[k + 1].item.id)?.push(track[k].item.id)
        }
      }
      for (const laid of track) {
        const outside = laid.blockStart < bounds.start || laid.blockEnd > bounds.end
        expect(laid.schedule.conflicts.filter((c) => c.code === "outside_day").length).toBe(outside ? 1 : 0)
      }
    }
    for (const item of items) {
      const s = result.get(item.id)
      if (s === undefined) throw new Error("missing")
      const reported = s.conflicts.filter((c) => c.code === "overlap").map((c) => c.withItemId ?? "")
      expect(reported.sort()).toEqual((expected.get(item.id) ?? []).sort())
    }
  }, RUNS)

  prop(
    "locality: a float's duration moves only the floats of its segment on its flow side",
    [dayArb, itemsArb, fc.nat(), fc.integer({ min: 1, max: 240 })],
    ([day, items, pick, duration]) => {
      const before = cascade(day, items)
      const floats = [...laidTracks(day, items, before).values()].flatMap((track) =>
        segmentsOf(track).flatMap((segment) => segment.members.map((laid, position) => ({ laid, position, segment })))
      )
      fc.pre(floats.length > 0)
      const { laid, position, segment } = floats[pick % floats.length]
      const delta = (duration - laid.item.durationMinutes) * MINUTE
      const after = cascade(day, items.map((item) => (item.id === laid.item.id ? { ...item, durationMinutes: duration } : item)))

      const moves = new Map<string, { readonly start: number; readonly end: number }>()
      if (segment.flow === "toward-pivot") {
        segment.members.slice(0, position).forEach((m) => moves.set(m.item.id, { start: -delta, end: -delta }))
        moves.set(laid.item.id, { start: -delta, end: 0 })
      } else {
        moves.set(laid.item.id, { start: 0, end: delta })
        segment.members.slice(position + 1).forEach((m) => moves.set(m.item.id, { start: delta, end: delta }))
      }
      for (const item of items) {
        const was = before.get(item.id)
        const now = after.get(item.id)
        if (was === undefined || now === undefined) throw new Error("missing")
        const move = moves.get(item.id)
        if (move === undefined) {
          expect([now.startsAt, now.endsAt, now.startTime, now.endTime]).toEqual([was.startsAt, was.endsAt, was.startTime, was.endTime])
        } else {
          expect(now.startsAt).toBe((was.startsAt ?? NaN) + move.start)
          expect(now.endsAt).toBe((was.endsAt ?? NaN) + move.end)
        }
      }
    },
    RUNS
  )

  prop("skipped items take no time and change nothing else", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    const without = cascade(day, items.filter((item) => item.status !== "skipped"))
    for (const item of items) {
      if (item.status === "skipped") expect(result.get(item.id)?.startsAt).toBeNull()
      else expect(result.get(item.id)).toEqual(without.get(item.id))
    }
  }, RUNS)

  prop("tracks are independent", [dayArb, itemsArb], ([day, items]) => {
    const result = cascade(day, items)
    for (const trackId of [null, "a", "b"]) {
      const alone = cascade(day, items.filter((item) => item.trackId === trackId))
      for (const [id, schedule] of alone) expect(result.get(id)).toEqual(schedule)
    }
  }, RUNS)

  prop(
    "the result does not depend on the order of the input",
    [dayArb, itemsArb.chain((items) => fc.tuple(fc.constant(items), fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length })))],
    ([day, [items, shuffled]]) => {
      expect(plain(cascade(day, shuffled))).toEqual(plain(cascade(day, items)))
      expect(plain(cascade(day, [...items].reverse()))).toEqual(plain(cascade(day, items)))
    },
    RUNS
  )

  prop("it is deterministic and leaves its input alone", [dayArb, itemsArb], ([day, items]) => {
    const copy = items.map((item) => ({ ...item, createdAt: new Date(item.createdAt.getTime()) }))
    const first = plain(cascade(day, items))
    expect(plain(cascade(structuredClone(day), copy))).toEqual(first)
    expect(plain(cascade(day, items))).toEqual(first)
    expect(copy).toEqual(items)
  }, RUNS)

  prop("dayOrder is sortOrder, then createdAt, then id", [itemsArb], ([items]) => {
    const sorted = [...items].sort(dayOrder)
    expect(sorted.map((item) => item.id)).toEqual([...items].sort(byDayOrder).map((item) => item.id))
  })
})

// ---------------------------------------------------------------------------------------------
// Examples.

let seq = 0
const item = (fields: Partial<CascadeItem> & Pick<CascadeItem, "durationMinutes">): CascadeItem => {
  seq++
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, "0")}`,
    sortOrder: seq,
    createdAt: new Date(CREATED),
    trackId: null,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    travelTimeMinutes: 0,
    anchorType: "float",
    anchorKey: null,
    requestedStartTime: null,
    status: "pending",
    ...fields
  }
}

/** Each item's clock times and conflict codes (overlaps with the other item's title), by title. */
const table = (items: ReadonlyArray<CascadeItem>, titles: ReadonlyMap<string, string>, result: ReadonlyMap<string, ItemSchedule>) =>
  Object.fromEntries(items.map((i) => {
    const s = result.get(i.id)
    if (s === undefined) throw new Error("missing")
    const conflicts = s.conflicts.map((c) => (c.code === "overlap" ? `overlap ${titles.get(c.withItemId ?? "")}` : c.code))
    return [titles.get(i.id), s.startTime === null ? "skipped" : [s.startTime, s.endTime, ...conflicts].join(" ")]
  }))

const titled = (entries: ReadonlyArray<readonly [string, CascadeItem]>) => ({
  items: entries.map(([, i]) => i),
  titles: new Map(entries.map(([title, i]) => [i.id, title]))
})

const BERLIN: CascadeDay["venue"] = { latitude: 52.52, longitude: 13.405 }

describe("cascade: a wedding day", () => {
  // Berlin, 20 June 2026 (CEST, UTC+2). suncalc: sunrise 02:42:55Z, golden hour ends 03:39:05Z,
  // golden hour begins 18:36:56Z, sunset 19:33:06Z, i.e. 04:43, 05:39, 20:37 and 21:33 local.
  const day: CascadeDay = {
    date: "2026-06-20",
    timeZone: "Europe/Berlin",
    startTime: "09:00",
    keyMoments: { ceremony: "14:00", "first-dance": "20:30" },
    venue: BERLIN
  }
  const { items, titles } = titled([
    // main track: the morning flows backward toward the ceremony
    ["hair", item({ durationMinutes: 120 })],
    ["first look", item({ durationMinutes: 30, bufferAfterMinutes: 10 })],
    ["ceremony", item({ durationMinutes: 45, bufferBeforeMinutes: 10, travelTimeMinutes: 20, anchorType: "key-moment", anchorKey: "ceremony" })],
    ["group photos", item({ durationMinutes: 40 })],
    ["cake", item({ durationMinutes: 20, anchorType: "key-moment", anchorKey: "cake" })],
    ["drinks", item({ durationMinutes: 90, bufferAfterMinutes: 15 })],
    ["dinner", item({ durationMinutes: 120, anchorType: "fixed", requestedStartTime: "18:00" })],
    ["first dance", item({ durationMinutes: 30, anchorType: "key-moment", anchorKey: "first-dance" })],
    ["portraits", item({ durationMinutes: 30, travelTimeMinutes: 10, anchorType: "golden-hour", anchorKey: "sunset" })],
    ["bouquet", item({ durationMinutes: 10, status: "skipped" })],
    ["party", item({ durationMinutes: 180 })],
    // photo track: before a fixed anchor, floats start at the day's startTime
    ["details", item({ trackId: "photo", durationMinutes: 60 })],
    ["getting ready", item({ trackId: "photo", durationMinutes: 90, bufferBeforeMinutes: 15 })],
    ["church", item({ trackId: "photo", durationMinutes: 60, anchorType: "fixed", requestedStartTime: "11:30" })],
    ["golden shoot", item({ trackId: "photo", durationMinutes: 45, anchorType: "golden-hour", anchorKey: "golden-hour-evening" })],
    // video track: the sun's morning
    ["drone", item({ trackId: "video", durationMinutes: 15, anchorType: "golden-hour", anchorKey: "sunrise" })],
    ["b-roll", item({ trackId: "video", durationMinutes: 30 })],
    ["morning light", item({ trackId: "video", durationMinutes: 20, anchorType: "golden-hour", anchorKey: "golden-hour-morning" })]
  ])

  it("is laid as the rules say", () => {
    expect(table(items, titles, cascade(day, items))).toEqual({
      "hair": "10:50 12:50",
      "first look": "12:50 13:20",
      "ceremony": "14:00 14:45",
      "group photos": "14:45 15:25",
      "cake": "15:25 15:45 unknown_key_moment",
      "drinks": "15:45 17:15",
      "dinner": "18:00 20:00",
      "first dance": "20:30 21:00 overlap portraits",
      "portraits": "21:03 21:33 overlap first dance",
      "bouquet": "skipped",
      "party": "21:33 00:33 outside_day",
      "details": "09:00 10:00",
      "getting ready": "10:15 11:45 overlap church",
      "church": "11:30 12:30 overlap getting ready",
      "golden shoot": "20:37 21:22",
      "drone": "04:43 04:58",
      "b-roll": "04:58 05:28 overlap morning light",
      "morning light": "05:19 05:39 overlap b-roll"
    })
  })

  it("skipping and reordering the input changes nothing else", () => {
    const reference = plain(cascade(day, items))
    expect(plain(cascade(day, [...items].reverse()))).toEqual(reference)
    const bouquet = items.find((i) => titles.get(i.id) === "bouquet")
    expect(cascade(day, items).get(bouquet?.id ?? "")).toEqual({ startsAt: null, endsAt: null, startTime: null, endTime: null, conflicts: [] })
  })

  it("without coordinates the sun's anchors are floats with a conflict", () => {
    const result = cascade({ ...day, venue: { latitude: null, longitude: null } }, items)
    const portraits = items.find((i) => titles.get(i.id) === "portraits")
    const s = result.get(portraits?.id ?? "")
    // laid after the first dance, as a float
    expect([s?.startTime, s?.endTime]).toEqual(["21:10", "21:40"])
    expect(s?.conflicts.map((c) => c.code)).toEqual(["missing_venue_coordinates"])
  })
})

describe("cascade: days on which the clocks change", () => {
  it("Europe/Berlin, spring forward (23 hours)", () => {
    const day: CascadeDay = { date: "2026-03-29", timeZone: "Europe/Berlin", startTime: "00:30", keyMoments: { ceremony: "04:00" }, venue: BERLIN }
    const { items, titles } = titled([
      ["night", item({ durationMinutes: 120 })],
      ["after", item({ durationMinutes: 60 })],
      ["gap time", item({ trackId: "b", durationMinutes: 30, anchorType: "fixed", requestedStartTime: "02:30" })],
      ["before ceremony", item({ trackId: "c", durationMinutes: 120 })],
      ["ceremony", item({ trackId: "c", durationMinutes: 30, anchorType: "key-moment", anchorKey: "ceremony" })],
      ["whole day", item({ trackId: "d", durationMinutes: 23 * 60, anchorType: "fixed", requestedStartTime: "00:00" })],
      ["too long", item({ trackId: "e", durationMinutes: 23 * 60 + 1, anchorType: "fixed", requestedStartTime: "00:00" })]
    ])
    const result = cascade(day, items)
    expect(table(items, titles, result)).toEqual({
      // 120 real minutes from 00:30 CET end at 03:30 CEST
      "night": "00:30 03:30",
      "after": "03:30 04:30",
      // 02:30 does not exist; it is read as 03:30
      "gap time": "03:30 04:00",
      // backward from the ceremony: 120 real minutes before 04:00 CEST is 01:00 CET
      "before ceremony": "01:00 04:00",
      "ceremony": "04:00 04:30",
      "whole day": "00:00 00:00",
      "too long": "00:00 00:01 outside_day"
    })
    const night = result.get(items[0].id)
    expect(night?.startsAt).toBe(Date.parse("2026-03-28T23:30:00Z"))
    expect(night?.endsAt).toBe(Date.parse("2026-03-29T01:30:00Z"))
  })

  it("Europe/Berlin, fall back (25 hours)", () => {
    const day: CascadeDay = { date: "2026-10-25", timeZone: "Europe/Berlin", startTime: "01:00", keyMoments: {}, venue: BERLIN }
    const { items, titles } = titled([
      ["night", item({ durationMinutes: 180 })],
      ["repeated time", item({ trackId: "b", durationMinutes: 30, anchorType: "fixed", requestedStartTime: "02:30" })],
      ["whole day", item({ trackId: "d", durationMinutes: 25 * 60, anchorType: "fixed", requestedStartTime: "00:00" })],
      ["too long", item({ trackId: "e", durationMinutes: 25 * 60 + 1, anchorType: "fixed", requestedStartTime: "00:00" })]
    ])
    const result = cascade(day, items)
    expect(table(items, titles, result)).toEqual({
      // 180 real minutes from 01:00 CEST end at 03:00 CET
      "night": "01:00 03:00",
      "repeated time": "02:30 03:00",
      "whole day": "00:00 00:00",
      "too long": "00:00 00:01 outside_day"
    })
    // of the two 02:30s, the later (CET)
    expect(result.get(items[1].id)?.startsAt).toBe(Date.parse("2026-10-25T01:30:00Z"))
  })

  it("America/New_York, spring forward and fall back", () => {
    const spring: CascadeDay = { date: "2026-03-08", timeZone: "America/New_York", startTime: "00:00", keyMoments: {}, venue: { latitude: null, longitude: null } }
    const fall: CascadeDay = { ...spring, date: "2026-11-01" }
    const { items, titles } = titled([
      ["night", item({ durationMinutes: 180 })],
      ["fixed", item({ trackId: "b", durationMinutes: 60, anchorType: "fixed", requestedStartTime: "01:30" })],
      ["gap", item({ trackId: "c", durationMinutes: 60, anchorType: "fixed", requestedStartTime: "02:30" })]
    ])
    const springResult = cascade(spring, items)
    expect(table(items, titles, springResult)).toEqual({
      "night": "00:00 04:00",
      "fixed": "01:30 03:30",
      "gap": "03:30 04:30"
    })
    const fallResult = cascade(fall, items)
    expect(table(items, titles, fallResult)).toEqual({
      "night": "00:00 02:00",
      "fixed": "01:30 02:30",
      "gap": "02:30 03:30"
    })
    expect(fallResult.get(items[1].id)?.startsAt).toBe(Date.parse("2026-11-01T06:30:00Z"))
    expect(fallResult.get(items[0].id)?.endsAt).toBe(Date.parse("2026-11-01T07:00:00Z"))
  })
})

describe("cascade: golden hour", () => {
  const sun = (key: string, duration = 30) => item({ durationMinutes: duration, anchorType: "golden-hour", anchorKey: key, trackId: key })

  it("Berlin, 20 June 2026: suncalc's own times, to the nearest minute, in local time", () => {
    const day: CascadeDay = { date: "2026-06-20", timeZone: "Europe/Berlin", startTime: "09:00", keyMoments: {}, venue: BERLIN }
    const times = SunCalc.getTimes(new Date("2026-06-20T12:00:00+02:00"), 52.52, 13.405)
    const items = [sun("sunset"), sun("sunrise"), sun("golden-hour-evening"), sun("golden-hour-morning")]
    const result = cascade(day, items)
    const [sunset, sunrise, evening, morning] = items.map((i) => result.get(i.id))
    expect(sunset?.endsAt).toBe(toMinute(times.sunset?.getTime() ?? NaN))
    expect(sunrise?.startsAt).toBe(toMinute(times.sunrise?.getTime() ?? NaN))
    expect(evening?.startsAt).toBe(toMinute(times.goldenHour?.getTime() ?? NaN))
    expect(morning?.endsAt).toBe(toMinute(times.goldenHourEnd?.getTime() ?? NaN))
    // the almanac's sunrise and sunset in Berlin on that day: 04:43 and 21:33
    expect([sunset?.startTime, sunset?.endTime]).toEqual(["21:03", "21:33"])
    expect([sunrise?.startTime, sunrise?.endTime]).toEqual(["04:43", "05:13"])
    expect([evening?.startTime, morning?.endTime]).toEqual(["20:37", "05:39"])
    // 19:33:05.9Z is rounded to 19:33Z, not cut
    expect(times.sunset?.toISOString().slice(11, 19)).toBe("19:33:05")
    expect(sunset?.endsAt).toBe(Date.parse("2026-06-20T19:33:00Z"))
  })

  it("New York, 4 July 2026", () => {
    const day: CascadeDay = { date: "2026-07-04", timeZone: "America/New_York", startTime: "09:00", keyMoments: {}, venue: { latitude: 40.7128, longitude: -74.006 } }
    const times = SunCalc.getTimes(new Date("2026-07-04T12:00:00-04:00"), 40.7128, -74.006)
    const portraits = sun("sunset")
    const s = cascade(day, [portraits]).get(portraits.id)
    expect(s?.endsAt).toBe(toMinute(times.sunset?.getTime() ?? NaN))
    expect(s?.endTime).toBe("20:31")
  })

  it("no sunset in Tromsø at midsummer, no sunrise at midwinter: a conflict, laid as a float", () => {
    const tromso = { latitude: 69.6492, longitude: 18.9553 }
    const summer: CascadeDay = { date: "2026-06-20", timeZone: "Europe/Oslo", startTime: "10:00", keyMoments: {}, venue: tromso }
    const sunset = sun("sunset")
    const s = cascade(summer, [sunset]).get(sunset.id)
    expect([s?.startTime, s?.endTime]).toEqual(["10:00", "10:30"])
    expect(s?.conflicts.map((c) => c.code)).toEqual(["no_sun_event"])
    const sunrise = sun("sunrise")
    const w = cascade({ ...summer, date: "2026-12-21" }, [sunrise]).get(sunrise.id)
    expect(w?.conflicts.map((c) => c.code)).toEqual(["no_sun_event"])
    expect(w?.startTime).toBe("10:00")
  })
})
