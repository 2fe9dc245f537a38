import { expect, layer } from "@effect/vitest"
import { created, del, expectError, expectInvalid, fetched, get, NIL, patch, post, type Response, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect } from "effect"
import { DateTime } from "luxon"
import { randomUUID } from "node:crypto"
import * as SunCalc from "suncalc"

/** The server runs on the real clock (the TestClock of the test services stands at 1970). */
const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const newDay = (key: string, body: Record<string, unknown> = {}) => created("/api/v1/event-days", key, { date: "2026-05-04", ...body })

const newItem = (key: string, eventDayId: string, title: string, durationMinutes: number, body: Record<string, unknown> = {}) =>
  Effect.map(post("/api/v1/timeline-items", { eventDayId, title, durationMinutes, ...body }, { key }), (res) => {
    expect({ title, status: res.status }).toEqual({ title, status: 201 })
    return res.body
  })

/** The whole schedule of a day, as the list gives it. */
const dayItems = (key: string, eventDayId: string) =>
  Effect.map(fetched(`/api/v1/timeline-items?eventDayId=${eventDayId}&pageSize=100`, key), (body) => body.data as Array<any>)

/** What the cascade decided for each item: position and clock times. */
const slots = (items: ReadonlyArray<any>) =>
  items.map((i) => ({ title: i.title, sortOrder: i.sortOrder, startTime: i.startTime, endTime: i.endTime }))

/** The instants of each item. */
const instants = (items: ReadonlyArray<any>) => items.map((i) => [i.title, i.startsAt, i.endsAt])

/** `HH:MM` of minutes since midnight. */
const clock = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`

/** A 400 invalid_payload whose first issue has exactly this path. */
const expectInvalidAt = (res: Response, path: ReadonlyArray<string | number>) => {
  expectError(res, 400, "invalid_request", "invalid_payload")
  expect(res.body.error.details.issues[0].path).toEqual(path)
  expect(typeof res.body.error.details.issues[0].message).toBe("string")
}

/** A 400 linked_record_not_found naming the field. */
const expectUnknownLink = (res: Response, field: string) => {
  expectError(res, 400, "invalid_request", "linked_record_not_found")
  expect(res.body.error.details.field).toBe(field)
}

const conflict = (code: string, withItemId?: string) =>
  withItemId === undefined ? { code, message: expect.any(String) } : { code, message: expect.any(String), withItemId }

/** The local clock time of an instant, in a zone (luxon, independent of the server). */
const localClock = (instant: string | Date, zone: string) =>
  (typeof instant === "string" ? DateTime.fromISO(instant) : DateTime.fromJSDate(instant)).setZone(zone).toFormat("HH:mm")

/** A sun time to the nearest minute, as an ISO timestamp. */
const toMinute = (date: Date | null) => {
  if (date === null) throw new Error("no such sun event")
  return new Date(Math.round(date.getTime() / 60_000) * 60_000).toISOString()
}

layer(TestServerLive, REAL_CLOCK)("timeline items: the cascade over HTTP", (it) => {
  it.effect("Done when: create a day, add items, reorder, lengthen one, and the next list shows the reflow", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, { date: "2026-09-12", timeZone: "Europe/Berlin", startTime: "10:00" })
      const arrival = yield* newItem(key, day.id, "Arrival", 30)
      yield* newItem(key, day.id, "Speech", 20)
      const lunch = yield* newItem(key, day.id, "Lunch", 60)

      // Berlin is UTC+2 in September.
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "Arrival", sortOrder: 0, startTime: "10:00", endTime: "10:30" },
        { title: "Speech", sortOrder: 1, startTime: "10:30", endTime: "10:50" },
        { title: "Lunch", sortOrder: 2, startTime: "10:50", endTime: "11:50" }
      ])

      const moved = yield* patch(`/api/v1/timeline-items/${lunch.id}`, { sortOrder: 0 }, { key })
      expect(moved.status).toBe(200)
      expect(moved.body).toMatchObject({ sortOrder: 0, startTime: "10:00", endTime: "11:00", startsAt: "2026-09-12T08:00:00.000Z" })
      const reordered = yield* dayItems(key, day.id)
      expect(slots(reordered)).toEqual([
        { title: "Lunch", sortOrder: 0, startTime: "10:00", endTime: "11:00" },
        { title: "Arrival", sortOrder: 1, startTime: "11:00", endTime: "11:30" },
        { title: "Speech", sortOrder: 2, startTime: "11:30", endTime: "11:50" }
      ])
      expect(instants(reordered)).toEqual([
        ["Lunch", "2026-09-12T08:00:00.000Z", "2026-09-12T09:00:00.000Z"],
        ["Arrival", "2026-09-12T09:00:00.000Z", "2026-09-12T09:30:00.000Z"],
        ["Speech", "2026-09-12T09:30:00.000Z", "2026-09-12T09:50:00.000Z"]
      ])

      const lengthened = yield* patch(`/api/v1/timeline-items/${arrival.id}`, { durationMinutes: 45 }, { key })
      expect(lengthened.status).toBe(200)
      expect(lengthened.body).toMatchObject({ durationMinutes: 45, sortOrder: 1, startTime: "11:00", endTime: "11:45" })
      const reflowed = yield* dayItems(key, day.id)
      expect(slots(reflowed)).toEqual([
        { title: "Lunch", sortOrder: 0, startTime: "10:00", endTime: "11:00" },
        { title: "Arrival", sortOrder: 1, startTime: "11:00", endTime: "11:45" },
        { title: "Speech", sortOrder: 2, startTime: "11:45", endTime: "12:05" }
      ])
      expect(instants(reflowed)).toEqual([
        ["Lunch", "2026-09-12T08:00:00.000Z", "2026-09-12T09:00:00.000Z"],
        ["Arrival", "2026-09-12T09:00:00.000Z", "2026-09-12T09:45:00.000Z"],
        ["Speech", "2026-09-12T09:45:00.000Z", "2026-09-12T10:05:00.000Z"]
      ])
      for (const item of reflowed) expect(item.conflicts).toEqual([])
      // A GET of one item gives the same computed times as the list.
      expect((yield* get(`/api/v1/timeline-items/${reflowed[2].id}`, { key })).body).toEqual(reflowed[2])
    }))

  it.effect("the behaviour doc's hand-verified day: floats flow back from the ceremony, portraits end at sunset", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, {
        date: "2026-06-20",
        timeZone: "Europe/Berlin",
        startTime: "10:00",
        keyMoments: { ceremony: "16:00" },
        venue: { name: "Berlin", latitude: 52.52, longitude: 13.405 }
      })
      yield* newItem(key, day.id, "Hair", 90)
      yield* newItem(key, day.id, "Makeup", 60, { bufferAfterMinutes: 15 })
      yield* newItem(key, day.id, "Ceremony", 45, { anchorType: "key-moment", anchorKey: "ceremony" })
      yield* newItem(key, day.id, "Portraits", 30, { anchorType: "golden-hour", anchorKey: "sunset" })
      const items = yield* dayItems(key, day.id)
      expect(slots(items)).toEqual([
        { title: "Hair", sortOrder: 0, startTime: "13:15", endTime: "14:45" },
        { title: "Makeup", sortOrder: 1, startTime: "14:45", endTime: "15:45" },
        { title: "Ceremony", sortOrder: 2, startTime: "16:00", endTime: "16:45" },
        { title: "Portraits", sortOrder: 3, startTime: "21:03", endTime: "21:33" }
      ])
      expect(instants(items)).toEqual([
        ["Hair", "2026-06-20T11:15:00.000Z", "2026-06-20T12:45:00.000Z"],
        ["Makeup", "2026-06-20T12:45:00.000Z", "2026-06-20T13:45:00.000Z"],
        ["Ceremony", "2026-06-20T14:00:00.000Z", "2026-06-20T14:45:00.000Z"],
        ["Portraits", "2026-06-20T19:03:00.000Z", "2026-06-20T19:33:00.000Z"]
      ])
      for (const item of items) expect(item.conflicts).toEqual([])
    }))

  it.effect("golden-hour anchors follow suncalc for the venue: sunset ends, sunrise starts, the evening golden hour starts, the morning one ends", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const zone = "Europe/Berlin"
      const day = yield* newDay(key, { date: "2026-06-20", timeZone: zone, venue: { latitude: 52.52, longitude: 13.405 } })
      const sun = SunCalc.getTimes(DateTime.fromISO("2026-06-20T12:00", { zone }).toJSDate(), 52.52, 13.405)
      // Each on its own track, so that they do not touch each other.
      yield* newItem(key, day.id, "sunset", 30, { anchorType: "golden-hour", anchorKey: "sunset", trackId: "t1" })
      yield* newItem(key, day.id, "sunrise", 30, { anchorType: "golden-hour", anchorKey: "sunrise", trackId: "t2" })
      yield* newItem(key, day.id, "evening", 30, { anchorType: "golden-hour", anchorKey: "golden-hour-evening", trackId: "t3" })
      yield* newItem(key, day.id, "morning", 30, { anchorType: "golden-hour", anchorKey: "golden-hour-morning", trackId: "t4" })
      const byTitle = new Map((yield* dayItems(key, day.id)).map((i) => [i.title, i]))
      expect(byTitle.get("sunset")).toMatchObject({ endsAt: toMinute(sun.sunset), endTime: localClock(toMinute(sun.sunset), zone), conflicts: [] })
      expect(byTitle.get("sunrise")).toMatchObject({ startsAt: toMinute(sun.sunrise), startTime: localClock(toMinute(sun.sunrise), zone), conflicts: [] })
      expect(byTitle.get("evening")).toMatchObject({ startsAt: toMinute(sun.goldenHour), conflicts: [] })
      expect(byTitle.get("morning")).toMatchObject({ endsAt: toMinute(sun.goldenHourEnd), conflicts: [] })
      // The doc's hand-checked value for that day and place.
      expect(byTitle.get("sunset").endTime).toBe("21:33")
    }))

  it.effect("buffers and travel widen the blocks: a float starts after the previous block's bufferAfter and its own travel and bufferBefore", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      yield* newItem(key, day.id, "A", 60, { bufferAfterMinutes: 10 })
      yield* newItem(key, day.id, "B", 30, { bufferBeforeMinutes: 5, travelTimeMinutes: 15 })
      yield* newItem(key, day.id, "C", 15)
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "A", sortOrder: 0, startTime: "09:00", endTime: "10:00" },
        { title: "B", sortOrder: 1, startTime: "10:30", endTime: "11:00" },
        { title: "C", sortOrder: 2, startTime: "11:00", endTime: "11:15" }
      ])
    }))

  it.effect("floats after a fixed item flow forward from its block's end; floats before it start at the day's startTime", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, { startTime: "08:30" })
      yield* newItem(key, day.id, "Before", 30)
      yield* newItem(key, day.id, "Fixed", 60, { anchorType: "fixed", requestedStartTime: "12:00", bufferAfterMinutes: 30 })
      yield* newItem(key, day.id, "After", 30, { travelTimeMinutes: 15 })
      yield* newItem(key, day.id, "Later", 20)
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "Before", sortOrder: 0, startTime: "08:30", endTime: "09:00" },
        { title: "Fixed", sortOrder: 1, startTime: "12:00", endTime: "13:00" },
        { title: "After", sortOrder: 2, startTime: "13:45", endTime: "14:15" },
        { title: "Later", sortOrder: 3, startTime: "14:15", endTime: "14:35" }
      ])
    }))

  it.effect("floats before the first pivot end where the pivot's block starts (its travel and bufferBefore included)", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, { keyMoments: { ceremony: "16:00" } })
      yield* newItem(key, day.id, "Dress", 60, { bufferBeforeMinutes: 10 })
      yield* newItem(key, day.id, "Drive", 20, { bufferAfterMinutes: 5 })
      yield* newItem(key, day.id, "Ceremony", 45, { anchorType: "key-moment", anchorKey: "ceremony", bufferBeforeMinutes: 15, travelTimeMinutes: 10 })
      // The ceremony's block starts at 15:35; Drive's block (with its 5 after) ends there.
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "Dress", sortOrder: 0, startTime: "14:10", endTime: "15:10" },
        { title: "Drive", sortOrder: 1, startTime: "15:10", endTime: "15:30" },
        { title: "Ceremony", sortOrder: 2, startTime: "16:00", endTime: "16:45" }
      ])
    }))

  it.effect("floats between two pivots flow forward from the first; floats before a sunset item flow back from it", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, {
        date: "2026-06-20",
        timeZone: "Europe/Berlin",
        keyMoments: { ceremony: "16:00" },
        venue: { latitude: 52.52, longitude: 13.405 }
      })
      yield* newItem(key, day.id, "Ceremony", 45, { anchorType: "key-moment", anchorKey: "ceremony" })
      yield* newItem(key, day.id, "Drinks", 30)
      yield* newItem(key, day.id, "Portraits", 30, { anchorType: "golden-hour", anchorKey: "sunset" })
      // Another track: only floats before the sunset item, so they end where it starts (sunset 21:33 − 30 min).
      yield* newItem(key, day.id, "Prep", 20, { trackId: "photo" })
      yield* newItem(key, day.id, "Sunset", 30, { trackId: "photo", anchorType: "golden-hour", anchorKey: "sunset" })
      expect(slots(yield* dayItems(key, day.id)).map((s) => [s.title, s.startTime, s.endTime])).toEqual([
        ["Ceremony", "16:00", "16:45"],
        ["Drinks", "16:45", "17:15"],
        ["Portraits", "21:03", "21:33"],
        ["Prep", "20:43", "21:03"],
        ["Sunset", "21:03", "21:33"]
      ])
    }))

  it.effect("changing the day reflows its items: a later startTime moves the floats, a new key moment moves its item", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, { keyMoments: { ceremony: "15:00" } })
      yield* newItem(key, day.id, "Float", 60)
      yield* newItem(key, day.id, "Ceremony", 30, { anchorType: "key-moment", anchorKey: "ceremony" })
      yield* newItem(key, day.id, "Party", 120)
      // The first float flows back from the ceremony; the one after flows forward.
      expect(slots(yield* dayItems(key, day.id)).map((s) => [s.title, s.startTime])).toEqual([["Float", "14:00"], ["Ceremony", "15:00"], [
        "Party",
        "15:30"
      ]])
      expect((yield* patch(`/api/v1/event-days/${day.id}`, { keyMoments: { ceremony: "17:15" } }, { key })).status).toBe(200)
      expect(slots(yield* dayItems(key, day.id)).map((s) => [s.title, s.startTime])).toEqual([["Float", "16:15"], ["Ceremony", "17:15"], [
        "Party",
        "17:45"
      ]])
    }))

  it.effect("changing the day's time zone keeps the clock times and moves the instants", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key, { date: "2026-07-01", startTime: "10:00" })
      const item = yield* newItem(key, day.id, "Brunch", 60)
      expect(item).toMatchObject({ startTime: "10:00", startsAt: "2026-07-01T10:00:00.000Z", endsAt: "2026-07-01T11:00:00.000Z" })
      expect((yield* patch(`/api/v1/event-days/${day.id}`, { timeZone: "America/New_York" }, { key })).status).toBe(200)
      // New York is UTC−4 in July.
      expect((yield* get(`/api/v1/timeline-items/${item.id}`, { key })).body).toMatchObject({
        startTime: "10:00",
        endTime: "11:00",
        startsAt: "2026-07-01T14:00:00.000Z",
        endsAt: "2026-07-01T15:00:00.000Z"
      })
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: create", (it) => {
  it.effect("a minimal item takes every default and starts at the day's startTime", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const before = Date.now()
      const res = yield* post("/api/v1/timeline-items", { eventDayId: day.id, title: "Setup", durationMinutes: 30 }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        eventDayId: day.id,
        title: "Setup",
        description: null,
        categoryId: null,
        sortOrder: 0,
        trackId: null,
        requestedStartTime: null,
        durationMinutes: 30,
        bufferBeforeMinutes: 0,
        bufferAfterMinutes: 0,
        travelTimeMinutes: 0,
        locked: false,
        anchorType: "float",
        anchorKey: null,
        location: null,
        visibleTo: ["master"],
        vendorIds: [],
        status: "pending",
        startsAt: "2026-05-04T09:00:00.000Z",
        endsAt: "2026-05-04T09:30:00.000Z",
        startTime: "09:00",
        endTime: "09:30",
        conflicts: [],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.updatedAt).toBe(res.body.createdAt)
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 5_000)
      expect((yield* get(`/api/v1/timeline-items/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
    }))

  it.effect("an item with every field given is read back as written, with its computed times", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { timeZone: "Europe/Berlin" })
      const categoryId = randomUUID()
      const vendorIds = [randomUUID(), randomUUID()]
      const body = {
        eventDayId: day.id,
        title: "Photos",
        description: "Family groups",
        categoryId,
        sortOrder: 0,
        trackId: "photo",
        requestedStartTime: "14:00",
        durationMinutes: 90,
        bufferBeforeMinutes: 10,
        bufferAfterMinutes: 5,
        travelTimeMinutes: 20,
        locked: true,
        anchorType: "fixed",
        location: "Garden",
        visibleTo: ["client", "master", "vendor", "team"],
        vendorIds,
        status: "in-progress"
      }
      const res = yield* post("/api/v1/timeline-items", body, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        ...body,
        id: expect.stringMatching(UUID),
        anchorKey: null,
        // Berlin is UTC+2 in May.
        startsAt: "2026-05-04T12:00:00.000Z",
        endsAt: "2026-05-04T13:30:00.000Z",
        startTime: "14:00",
        endTime: "15:30",
        conflicts: [],
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect((yield* get(`/api/v1/timeline-items/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
    }))

  it.effect("a key-moment item keeps its anchorKey and starts at the key moment", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { keyMoments: { "first-dance": "20:30" } })
      const item = yield* newItem(org.apiKey, day.id, "First dance", 10, { anchorType: "key-moment", anchorKey: "first-dance" })
      expect(item).toMatchObject({ anchorType: "key-moment", anchorKey: "first-dance", requestedStartTime: null, startTime: "20:30", endTime: "20:40", conflicts: [] })
    }))

  it.effect("the bounds are accepted: durations 1 and 1440, buffers 1440, a 200-character title, 50 vendors", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const one = yield* newItem(org.apiKey, day.id, "x".repeat(200), 1, { vendorIds: Array.from({ length: 50 }, () => randomUUID()), trackId: "t".repeat(50) })
      expect(one).toMatchObject({ durationMinutes: 1, trackId: "t".repeat(50) })
      expect(one.vendorIds).toHaveLength(50)
      const long = yield* newItem(org.apiKey, day.id, "Long", 1440, {
        bufferBeforeMinutes: 1440,
        bufferAfterMinutes: 1440,
        travelTimeMinutes: 1440,
        visibleTo: [],
        trackId: "other"
      })
      expect(long).toMatchObject({ durationMinutes: 1440, bufferBeforeMinutes: 1440, bufferAfterMinutes: 1440, travelTimeMinutes: 1440, visibleTo: [] })
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: order", (it) => {
  it.effect("create without sortOrder appends; with one inserts there and renumbers the day densely", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      for (const title of ["A", "B", "C"]) yield* newItem(key, day.id, title, 10)
      const d = yield* newItem(key, day.id, "D", 10, { sortOrder: 1 })
      expect(d).toMatchObject({ sortOrder: 1, startTime: "09:10" })
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "A", sortOrder: 0, startTime: "09:00", endTime: "09:10" },
        { title: "D", sortOrder: 1, startTime: "09:10", endTime: "09:20" },
        { title: "B", sortOrder: 2, startTime: "09:20", endTime: "09:30" },
        { title: "C", sortOrder: 3, startTime: "09:30", endTime: "09:40" }
      ])
      yield* newItem(key, day.id, "E", 5, { sortOrder: 0 })
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "E", sortOrder: 0, startTime: "09:00", endTime: "09:05" },
        { title: "A", sortOrder: 1, startTime: "09:05", endTime: "09:15" },
        { title: "D", sortOrder: 2, startTime: "09:15", endTime: "09:25" },
        { title: "B", sortOrder: 3, startTime: "09:25", endTime: "09:35" },
        { title: "C", sortOrder: 4, startTime: "09:35", endTime: "09:45" }
      ])
    }))

  it.effect("a sortOrder past the end appends at the next position", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      yield* newItem(key, day.id, "A", 10)
      yield* newItem(key, day.id, "B", 10)
      const far = yield* newItem(key, day.id, "Far", 10, { sortOrder: 99 })
      expect(far).toMatchObject({ sortOrder: 2, startTime: "09:20" })
      const exact = yield* newItem(key, day.id, "Exact", 10, { sortOrder: 3 })
      expect(exact.sortOrder).toBe(3)
      expect(slots(yield* dayItems(key, day.id)).map((s) => [s.title, s.sortOrder])).toEqual([["A", 0], ["B", 1], ["Far", 2], ["Exact", 3]])
      // Another day's numbering is its own.
      const other = yield* newDay(key)
      expect((yield* newItem(key, other.id, "First", 10, { sortOrder: 5 })).sortOrder).toBe(0)
    }))

  it.effect("PATCH sortOrder moves the item there, clamped to the last position, and renumbers the others", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      const items = []
      for (const title of ["A", "B", "C", "D", "E"]) items.push(yield* newItem(key, day.id, title, 10))
      const [a, b, , , e] = items
      const up = yield* patch(`/api/v1/timeline-items/${e.id}`, { sortOrder: 1 }, { key })
      expect(up.status).toBe(200)
      expect(up.body).toMatchObject({ sortOrder: 1, startTime: "09:10" })
      expect(slots(yield* dayItems(key, day.id)).map((s) => [s.title, s.sortOrder])).toEqual([["A", 0], ["E", 1], ["B", 2], ["C", 3], ["D", 4]])
      const down = yield* patch(`/api/v1/timeline-items/${a.id}`, { sortOrder: 99 }, { key })
      expect(down.status).toBe(200)
      expect(down.body).toMatchObject({ sortOrder: 4, startTime: "09:40", endTime: "09:50" })
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "E", sortOrder: 0, startTime: "09:00", endTime: "09:10" },
        { title: "B", sortOrder: 1, startTime: "09:10", endTime: "09:20" },
        { title: "C", sortOrder: 2, startTime: "09:20", endTime: "09:30" },
        { title: "D", sortOrder: 3, startTime: "09:30", endTime: "09:40" },
        { title: "A", sortOrder: 4, startTime: "09:40", endTime: "09:50" }
      ])
      // To its own place: nothing moves.
      const stay = yield* patch(`/api/v1/timeline-items/${b.id}`, { sortOrder: 1 }, { key })
      expect(stay.status).toBe(200)
      expect(stay.body.sortOrder).toBe(1)
      expect(slots(yield* dayItems(key, day.id)).map((s) => s.title)).toEqual(["E", "B", "C", "D", "A"])
    }))

  it.effect("DELETE closes the gap and the later items move up", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      yield* newItem(key, day.id, "A", 10)
      const b = yield* newItem(key, day.id, "B", 20)
      yield* newItem(key, day.id, "C", 10)
      yield* newItem(key, day.id, "D", 10)
      const removed = yield* del(`/api/v1/timeline-items/${b.id}`, { key })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/timeline-items/${b.id}`, { key }), 404, "not_found")
      expect(slots(yield* dayItems(key, day.id))).toEqual([
        { title: "A", sortOrder: 0, startTime: "09:00", endTime: "09:10" },
        { title: "C", sortOrder: 1, startTime: "09:10", endTime: "09:20" },
        { title: "D", sortOrder: 2, startTime: "09:20", endTime: "09:30" }
      ])
      // An item appended afterwards takes the next dense position.
      expect((yield* newItem(key, day.id, "E", 10)).sortOrder).toBe(3)
    }))

  it.effect("10 concurrent creates on one day get sortOrders 0..9, all distinct, and a consistent schedule", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      const results = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => post("/api/v1/timeline-items", { eventDayId: day.id, title: `T${i}`, durationMinutes: 10 }, { key })),
        { concurrency: "unbounded" }
      )
      for (const res of results) expect(res.status).toBe(201)
      expect(results.map((r) => r.body.sortOrder).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      const items = yield* dayItems(key, day.id)
      expect(items.map((i) => i.sortOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(new Set(items.map((i) => i.title)).size).toBe(10)
      items.forEach((item, k) => {
        expect(item).toMatchObject({ startTime: clock(9 * 60 + 10 * k), endTime: clock(9 * 60 + 10 * k + 10), conflicts: [] })
      })
    }))

  it.effect("concurrent moves, inserts and deletes on one day all succeed and leave the numbering dense", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      const items: Array<any> = []
      for (let i = 0; i < 8; i++) items.push(yield* newItem(key, day.id, `I${i}`, 10))
      const writes = [
        ...items.slice(0, 4).map((item, i) => patch(`/api/v1/timeline-items/${item.id}`, { sortOrder: 7 - i }, { key })),
        ...items.slice(4, 6).map((item) => del(`/api/v1/timeline-items/${item.id}`, { key })),
        ...Array.from({ length: 4 }, (_, i) => post("/api/v1/timeline-items", { eventDayId: day.id, title: `N${i}`, durationMinutes: 10, sortOrder: i * 2 }, { key }))
      ]
      const results = yield* Effect.all(writes, { concurrency: "unbounded" })
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201, 201, 201, 201, 204, 204])
      const after = yield* dayItems(key, day.id)
      expect(after.map((i) => i.sortOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(after.map((i) => i.title).sort()).toEqual(["I0", "I1", "I2", "I3", "I6", "I7", "N0", "N1", "N2", "N3"])
      after.forEach((item, k) => expect([item.startTime, item.conflicts]).toEqual([clock(9 * 60 + 10 * k), []]))
    }))

  it.effect("10 concurrent inserts at sortOrder 0 on one day keep the numbering dense", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const day = yield* newDay(key)
      yield* newItem(key, day.id, "Last", 10)
      const results = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => post("/api/v1/timeline-items", { eventDayId: day.id, title: `T${i}`, durationMinutes: 10, sortOrder: 0 }, { key })),
        { concurrency: "unbounded" }
      )
      for (const res of results) expect(res.status).toBe(201)
      const items = yield* dayItems(key, day.id)
      expect(items.map((i) => i.sortOrder)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      expect(items[10].title).toBe("Last")
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: validation", (it) => {
  it.effect("create: 400 invalid_payload at the field for every bad value and anchor rule; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const base = { eventDayId: day.id, title: "T", durationMinutes: 30 }
      const vendor = randomUUID()
      const bad: Array<[Record<string, unknown>, ReadonlyArray<string>]> = [
        [{ ...base, durationMinutes: 0 }, ["durationMinutes"]],
        [{ ...base, durationMinutes: 1441 }, ["durationMinutes"]],
        [{ ...base, durationMinutes: 1.5 }, ["durationMinutes"]],
        [{ ...base, durationMinutes: "30" }, ["durationMinutes"]],
        [{ eventDayId: day.id, title: "T" }, ["durationMinutes"]],
        [{ ...base, title: "" }, ["title"]],
        [{ ...base, title: "x".repeat(201) }, ["title"]],
        [{ eventDayId: day.id, durationMinutes: 30 }, ["title"]],
        [{ title: "T", durationMinutes: 30 }, ["eventDayId"]],
        [{ ...base, eventDayId: "not-a-uuid" }, ["eventDayId"]],
        [{ ...base, bufferBeforeMinutes: -1 }, ["bufferBeforeMinutes"]],
        [{ ...base, bufferAfterMinutes: 1441 }, ["bufferAfterMinutes"]],
        [{ ...base, travelTimeMinutes: 1.5 }, ["travelTimeMinutes"]],
        [{ ...base, sortOrder: -1 }, ["sortOrder"]],
        [{ ...base, sortOrder: 0.5 }, ["sortOrder"]],
        [{ ...base, trackId: "" }, ["trackId"]],
        [{ ...base, trackId: "t".repeat(51) }, ["trackId"]],
        [{ ...base, description: "x".repeat(5001) }, ["description"]],
        [{ ...base, location: "x".repeat(501) }, ["location"]],
        [{ ...base, categoryId: "cat-1" }, ["categoryId"]],
        [{ ...base, locked: "yes" }, ["locked"]],
        [{ ...base, status: "done" }, ["status"]],
        [{ ...base, anchorType: "pinned" }, ["anchorType"]],
        // Anchor rules.
        [{ ...base, anchorType: "fixed" }, ["requestedStartTime"]],
        [{ ...base, requestedStartTime: "10:00" }, ["requestedStartTime"]],
        [{ ...base, anchorType: "float", requestedStartTime: "10:00" }, ["requestedStartTime"]],
        [{ ...base, anchorType: "key-moment", anchorKey: "ceremony", requestedStartTime: "10:00" }, ["requestedStartTime"]],
        [{ ...base, anchorType: "fixed", requestedStartTime: "24:00" }, ["requestedStartTime"]],
        [{ ...base, anchorType: "fixed", requestedStartTime: "9:00" }, ["requestedStartTime"]],
        [{ ...base, anchorType: "key-moment" }, ["anchorKey"]],
        [{ ...base, anchorType: "key-moment", anchorKey: "Ceremony" }, ["anchorKey"]],
        [{ ...base, anchorType: "key-moment", anchorKey: "" }, ["anchorKey"]],
        [{ ...base, anchorType: "golden-hour" }, ["anchorKey"]],
        [{ ...base, anchorType: "golden-hour", anchorKey: "noon" }, ["anchorKey"]],
        [{ ...base, anchorKey: "ceremony" }, ["anchorKey"]],
        [{ ...base, anchorType: "fixed", requestedStartTime: "10:00", anchorKey: "ceremony" }, ["anchorKey"]],
        [{ ...base, anchorType: "none", anchorKey: "sunset" }, ["anchorKey"]],
        // Lists.
        [{ ...base, visibleTo: ["public"] }, ["visibleTo"]],
        [{ ...base, visibleTo: ["master", "master"] }, ["visibleTo"]],
        [{ ...base, visibleTo: "master" }, ["visibleTo"]],
        [{ ...base, vendorIds: [vendor, vendor] }, ["vendorIds"]],
        [{ ...base, vendorIds: ["vendor-1"] }, ["vendorIds"]],
        [{ ...base, vendorIds: Array.from({ length: 51 }, () => randomUUID()) }, ["vendorIds"]],
        // Unknown and computed fields.
        [{ ...base, colour: "red" }, ["colour"]],
        [{ ...base, startTime: "10:00" }, ["startTime"]],
        [{ ...base, startsAt: "2026-05-04T10:00:00.000Z" }, ["startsAt"]],
        [{ ...base, conflicts: [] }, ["conflicts"]],
        [{ ...base, id: NIL }, ["id"]]
      ]
      for (const [body, path] of bad) {
        const res = yield* post("/api/v1/timeline-items", body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 400 })
        if (path[0] === "visibleTo" || path[0] === "vendorIds") expectInvalid(res, path[0])
        else expectInvalidAt(res, path)
      }
      expect(yield* dayItems(org.apiKey, day.id)).toEqual([])
      expect((yield* get("/api/v1/timeline-items", { key: org.apiKey })).body.pagination.total).toBe(0)
    }))

  it.effect("create: an eventDayId that is not a day of the organization is 400 linked_record_not_found", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirDay = yield* newDay(theirs.apiKey)
      expectUnknownLink(yield* post("/api/v1/timeline-items", { eventDayId: theirDay.id, title: "T", durationMinutes: 30 }, { key: mine.apiKey }), "eventDayId")
      expectUnknownLink(yield* post("/api/v1/timeline-items", { eventDayId: NIL, title: "T", durationMinutes: 30 }, { key: mine.apiKey }), "eventDayId")
      expect((yield* get("/api/v1/timeline-items", { key: mine.apiKey })).body.pagination.total).toBe(0)
      expect(yield* dayItems(theirs.apiKey, theirDay.id)).toEqual([])
    }))

  it.effect("PATCH: bad values, unknown and read-only fields are 400 at the field and change nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id, "Keep", 30)
      const path = `/api/v1/timeline-items/${item.id}`
      const vendor = randomUUID()
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ durationMinutes: 0 }, "durationMinutes"],
        [{ durationMinutes: 1441 }, "durationMinutes"],
        [{ durationMinutes: 1.5 }, "durationMinutes"],
        [{ durationMinutes: null }, "durationMinutes"],
        [{ title: "" }, "title"],
        [{ title: null }, "title"],
        [{ sortOrder: -1 }, "sortOrder"],
        [{ bufferAfterMinutes: -5 }, "bufferAfterMinutes"],
        [{ status: "cancelled" }, "status"],
        [{ visibleTo: ["client", "client"] }, "visibleTo"],
        [{ visibleTo: ["everyone"] }, "visibleTo"],
        [{ vendorIds: [vendor, vendor] }, "vendorIds"],
        [{ title: "New", colour: "red" }, "colour"],
        [{ eventDayId: day.id }, "eventDayId"],
        [{ startsAt: "2026-05-04T10:00:00.000Z" }, "startsAt"],
        [{ endTime: "10:00" }, "endTime"],
        [{ createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"]
      ]
      for (const [body, field] of bad) {
        const res = yield* patch(path, body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 400 })
        expectInvalid(res, field)
      }
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(item)
    }))

  it.effect("PATCH checks the anchor rules on the merged state: a fixed item keeps its requestedStartTime and takes no anchorKey", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { keyMoments: { ceremony: "16:00" } })
      const item = yield* newItem(org.apiKey, day.id, "Fixed", 30, { anchorType: "fixed", requestedStartTime: "12:00" })
      const path = `/api/v1/timeline-items/${item.id}`
      const bad: Array<[Record<string, unknown>, ReadonlyArray<string>]> = [
        [{ requestedStartTime: null }, ["requestedStartTime"]],
        [{ anchorKey: "ceremony" }, ["anchorKey"]],
        [{ anchorType: "key-moment" }, ["anchorKey"]],
        [{ anchorType: "golden-hour" }, ["anchorKey"]],
        [{ anchorType: "golden-hour", anchorKey: "noon" }, ["anchorKey"]],
        [{ anchorType: "float", requestedStartTime: "10:00" }, ["requestedStartTime"]],
        [{ anchorType: "key-moment", anchorKey: "ceremony", requestedStartTime: "12:00" }, ["requestedStartTime"]],
        [{ anchorType: "fixed", requestedStartTime: "25:00" }, ["requestedStartTime"]]
      ]
      for (const [body, at] of bad) {
        const res = yield* patch(path, body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 400 })
        expectInvalidAt(res, at)
      }
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(item)
      // Moving the fixed time alone is fine.
      const later = yield* patch(path, { requestedStartTime: "13:30" }, { key: org.apiKey })
      expect(later.status).toBe(200)
      expect(later.body).toMatchObject({ anchorType: "fixed", requestedStartTime: "13:30", startTime: "13:30", endTime: "14:00" })
    }))

  it.effect("PATCH fixed → float without naming requestedStartTime clears it, and the item flows from the day's start", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id, "Fixed", 30, { anchorType: "fixed", requestedStartTime: "12:00" })
      const res = yield* patch(`/api/v1/timeline-items/${item.id}`, { anchorType: "float" }, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ anchorType: "float", requestedStartTime: null, anchorKey: null, startTime: "09:00", endTime: "09:30" })
      expect((yield* get(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey })).body).toEqual(res.body)
      // Fixed → key-moment with a key clears it too.
      const other = yield* newItem(org.apiKey, day.id, "Other", 30, { anchorType: "fixed", requestedStartTime: "15:00" })
      const toMoment = yield* patch(`/api/v1/timeline-items/${other.id}`, { anchorType: "key-moment", anchorKey: "toast" }, { key: org.apiKey })
      expect(toMoment.status).toBe(200)
      expect(toMoment.body).toMatchObject({ anchorType: "key-moment", anchorKey: "toast", requestedStartTime: null })
    }))

  it.effect("PATCH float → fixed needs a requestedStartTime; key-moment → float clears the anchorKey", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { keyMoments: { ceremony: "16:00" } })
      const float = yield* newItem(org.apiKey, day.id, "Float", 30)
      expectInvalidAt(yield* patch(`/api/v1/timeline-items/${float.id}`, { anchorType: "fixed" }, { key: org.apiKey }), ["requestedStartTime"])
      expect((yield* get(`/api/v1/timeline-items/${float.id}`, { key: org.apiKey })).body).toEqual(float)
      const fixed = yield* patch(`/api/v1/timeline-items/${float.id}`, { anchorType: "fixed", requestedStartTime: "11:00" }, { key: org.apiKey })
      expect(fixed.status).toBe(200)
      expect(fixed.body).toMatchObject({ anchorType: "fixed", requestedStartTime: "11:00", startTime: "11:00" })

      const moment = yield* newItem(org.apiKey, day.id, "Ceremony", 30, { anchorType: "key-moment", anchorKey: "ceremony", trackId: "b" })
      expect(moment.startTime).toBe("16:00")
      const floated = yield* patch(`/api/v1/timeline-items/${moment.id}`, { anchorType: "float" }, { key: org.apiKey })
      expect(floated.status).toBe(200)
      expect(floated.body).toMatchObject({ anchorType: "float", anchorKey: null, requestedStartTime: null, startTime: "09:00" })
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: locked", (it) => {
  it.effect("a locked item refuses every change but unlocking: 409 record_immutable, nothing changes", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      yield* newItem(org.apiKey, day.id, "Free", 30)
      const item = yield* newItem(org.apiKey, day.id, "Vows", 30, { locked: true })
      const path = `/api/v1/timeline-items/${item.id}`
      for (
        const body of [
          { title: "Changed" },
          { durationMinutes: 60 },
          { sortOrder: 0 },
          { status: "completed" },
          { description: null },
          { anchorType: "fixed", requestedStartTime: "10:00" },
          { locked: false, title: "Changed" },
          { locked: true, durationMinutes: 45 }
        ]
      ) {
        const res = yield* patch(path, body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 409 })
        expectError(res, 409, "conflict", "record_immutable")
      }
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(item)
      expect(slots(yield* dayItems(org.apiKey, day.id)).map((s) => [s.title, s.sortOrder])).toEqual([["Free", 0], ["Vows", 1]])
    }))

  it.effect("{} and {\"locked\": true} on a locked item change nothing and answer 200", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id, "Vows", 30, { locked: true })
      const empty = yield* patch(`/api/v1/timeline-items/${item.id}`, {}, { key: org.apiKey })
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual(item)
      // Like a PATCH of any field to its own value, this may touch updatedAt; nothing else changes.
      const relock = yield* patch(`/api/v1/timeline-items/${item.id}`, { locked: true }, { key: org.apiKey })
      expect(relock.status).toBe(200)
      expect(relock.body).toEqual({ ...item, updatedAt: expect.stringMatching(TIMESTAMP) })
    }))

  it.effect("DELETE of a locked item is 409 record_immutable; the item stays", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id, "Vows", 30, { locked: true })
      expectError(yield* del(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey }), 409, "conflict", "record_immutable")
      expect((yield* get(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey })).body).toEqual(item)
    }))

  it.effect("{\"locked\": false} unlocks; then the item can be changed and deleted", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id, "Vows", 30, { locked: true })
      const path = `/api/v1/timeline-items/${item.id}`
      const unlocked = yield* patch(path, { locked: false }, { key: org.apiKey })
      expect(unlocked.status).toBe(200)
      expect(unlocked.body).toEqual({ ...item, locked: false, updatedAt: expect.stringMatching(TIMESTAMP) })
      const changed = yield* patch(path, { title: "Vows (short)", durationMinutes: 15 }, { key: org.apiKey })
      expect(changed.status).toBe(200)
      expect(changed.body).toMatchObject({ title: "Vows (short)", durationMinutes: 15, endTime: "09:15", locked: false })
      // Locking again is allowed, and then the item is frozen again.
      expect((yield* patch(path, { locked: true }, { key: org.apiKey })).body.locked).toBe(true)
      expectError(yield* patch(path, { title: "Again" }, { key: org.apiKey }), 409, "conflict", "record_immutable")
      expect((yield* patch(path, { locked: false }, { key: org.apiKey })).status).toBe(200)
      expect((yield* del(path, { key: org.apiKey })).status).toBe(204)
      expectError(yield* get(path, { key: org.apiKey }), 404, "not_found")
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: conflicts", (it) => {
  it.effect("two fixed items that overlap both get overlap naming the other; nothing moves", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const a = yield* newItem(org.apiKey, day.id, "A", 60, { anchorType: "fixed", requestedStartTime: "10:00" })
      const b = yield* newItem(org.apiKey, day.id, "B", 60, { anchorType: "fixed", requestedStartTime: "10:30" })
      const [first, second] = yield* dayItems(org.apiKey, day.id)
      expect(first).toMatchObject({ id: a.id, startTime: "10:00", endTime: "11:00" })
      expect(first.conflicts).toEqual([conflict("overlap", b.id)])
      expect(second).toMatchObject({ id: b.id, startTime: "10:30", endTime: "11:30" })
      expect(second.conflicts).toEqual([conflict("overlap", a.id)])
    }))

  it.effect("buffers count in an overlap; blocks that only touch do not overlap", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const a = yield* newItem(org.apiKey, day.id, "A", 60, { anchorType: "fixed", requestedStartTime: "10:00", bufferAfterMinutes: 15 })
      const b = yield* newItem(org.apiKey, day.id, "B", 30, { anchorType: "fixed", requestedStartTime: "11:10" })
      yield* newItem(org.apiKey, day.id, "C", 60, { anchorType: "fixed", requestedStartTime: "12:00" })
      yield* newItem(org.apiKey, day.id, "D", 60, { anchorType: "fixed", requestedStartTime: "13:10", travelTimeMinutes: 10 })
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.conflicts])).toEqual([
        ["A", [conflict("overlap", b.id)]],
        ["B", [conflict("overlap", a.id)]],
        ["C", []],
        ["D", []]
      ])
    }))

  it.effect("a key-moment whose key the day lacks gets unknown_key_moment and is laid as a float; naming the key fixes it", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { keyMoments: { ceremony: "16:00" } })
      const item = yield* newItem(org.apiKey, day.id, "Speeches", 30, { anchorType: "key-moment", anchorKey: "speeches" })
      expect(item).toMatchObject({ startTime: "09:00", endTime: "09:30", conflicts: [conflict("unknown_key_moment")] })
      expect((yield* patch(`/api/v1/event-days/${day.id}`, { keyMoments: { ceremony: "16:00", speeches: "18:00" } }, { key: org.apiKey })).status).toBe(200)
      expect((yield* get(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey })).body).toMatchObject({ startTime: "18:00", endTime: "18:30", conflicts: [] })
    }))

  it.effect("a golden-hour item on a venue without coordinates gets missing_venue_coordinates and is laid as a float", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { venue: { name: "Somewhere" } })
      yield* newItem(org.apiKey, day.id, "Warmup", 20)
      const item = yield* newItem(org.apiKey, day.id, "Portraits", 30, { anchorType: "golden-hour", anchorKey: "sunset" })
      expect(item).toMatchObject({ startTime: "09:20", endTime: "09:50", conflicts: [conflict("missing_venue_coordinates")] })
    }))

  it.effect("a golden-hour item where the sun does not set that day gets no_sun_event and is laid as a float", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      // Longyearbyen at midsummer: the sun never sets.
      const day = yield* newDay(org.apiKey, { date: "2026-06-20", timeZone: "Europe/Oslo", venue: { latitude: 78.22, longitude: 15.65 } })
      expect(SunCalc.getTimes(DateTime.fromISO("2026-06-20T12:00", { zone: "Europe/Oslo" }).toJSDate(), 78.22, 15.65).sunset).toBeNull()
      const item = yield* newItem(org.apiKey, day.id, "Portraits", 30, { anchorType: "golden-hour", anchorKey: "sunset" })
      expect(item).toMatchObject({ startTime: "09:00", endTime: "09:30", conflicts: [conflict("no_sun_event")] })
    }))

  it.effect("a block that runs past midnight gets outside_day; one that ends at midnight does not", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { date: "2026-05-04", startTime: "22:00" })
      yield* newItem(org.apiKey, day.id, "Party", 90)
      yield* newItem(org.apiKey, day.id, "Afterparty", 60)
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.startTime, i.endTime, i.endsAt, i.conflicts])).toEqual([
        ["Party", "22:00", "23:30", "2026-05-04T23:30:00.000Z", []],
        ["Afterparty", "23:30", "00:30", "2026-05-05T00:30:00.000Z", [conflict("outside_day")]]
      ])
      const other = yield* newDay(org.apiKey, { date: "2026-05-04" })
      const atMidnight = yield* newItem(org.apiKey, other.id, "Late", 60, { anchorType: "fixed", requestedStartTime: "23:00" })
      expect(atMidnight).toMatchObject({ endTime: "00:00", conflicts: [] })
      const byBuffer = yield* newItem(org.apiKey, other.id, "Early", 30, { anchorType: "fixed", requestedStartTime: "00:10", bufferBeforeMinutes: 20, trackId: "b" })
      expect(byBuffer).toMatchObject({ startTime: "00:10", conflicts: [conflict("outside_day")] })
    }))

  it.effect("skipped items have null times and no conflicts, and do not shift the others", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      yield* newItem(org.apiKey, day.id, "A", 60)
      const b = yield* newItem(org.apiKey, day.id, "B", 30, { status: "skipped" })
      yield* newItem(org.apiKey, day.id, "C", 30)
      yield* newItem(org.apiKey, day.id, "Clash", 60, { anchorType: "fixed", requestedStartTime: "10:15", status: "skipped" })
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.status, i.startsAt, i.endsAt, i.startTime, i.endTime, i.conflicts])).toEqual([
        ["A", "pending", "2026-05-04T09:00:00.000Z", "2026-05-04T10:00:00.000Z", "09:00", "10:00", []],
        ["B", "skipped", null, null, null, null, []],
        ["C", "pending", "2026-05-04T10:00:00.000Z", "2026-05-04T10:30:00.000Z", "10:00", "10:30", []],
        ["Clash", "skipped", null, null, null, null, []]
      ])
      // Un-skipping B puts it back in the flow.
      const back = yield* patch(`/api/v1/timeline-items/${b.id}`, { status: "pending" }, { key: org.apiKey })
      expect(back.body).toMatchObject({ startTime: "10:00", endTime: "10:30" })
      expect(slots(yield* dayItems(org.apiKey, day.id)).map((s) => [s.title, s.startTime])).toEqual([["A", "09:00"], ["B", "10:00"], ["C", "10:30"], [
        "Clash",
        null
      ]])
    }))

  it.effect("tracks are independent: an item on track b neither moves nor clashes with the main track", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      yield* newItem(org.apiKey, day.id, "A", 60)
      const side = yield* newItem(org.apiKey, day.id, "Side", 120, { trackId: "b" })
      yield* newItem(org.apiKey, day.id, "B", 30)
      const sideFixed = yield* newItem(org.apiKey, day.id, "Side fixed", 30, { trackId: "b", anchorType: "fixed", requestedStartTime: "10:00" })
      const expected = [
        ["A", null, "09:00", "10:00", []],
        ["Side", "b", "09:00", "11:00", [conflict("overlap", sideFixed.id)]],
        ["B", null, "10:00", "10:30", []],
        ["Side fixed", "b", "10:00", "10:30", [conflict("overlap", side.id)]]
      ]
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.trackId, i.startTime, i.endTime, i.conflicts])).toEqual(expected)
      expect((yield* patch(`/api/v1/timeline-items/${side.id}`, { durationMinutes: 240 }, { key: org.apiKey })).status).toBe(200)
      const after = yield* dayItems(org.apiKey, day.id)
      expect(after.filter((i) => i.trackId === null).map((i) => [i.title, i.startTime, i.endTime, i.conflicts])).toEqual([
        ["A", "09:00", "10:00", []],
        ["B", "10:00", "10:30", []]
      ])
      expect(after.find((i) => i.title === "Side")).toMatchObject({ startTime: "09:00", endTime: "13:00" })
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: daylight saving time", (it) => {
  it.effect("spring forward (2026-03-29, Europe/Berlin): hour-long floats from 01:00 skip 02:00", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const zone = "Europe/Berlin"
      const day = yield* newDay(org.apiKey, { date: "2026-03-29", timeZone: zone, startTime: "01:00" })
      for (const title of ["One", "Two", "Three"]) yield* newItem(org.apiKey, day.id, title, 60)
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.startTime, i.endTime])).toEqual([["One", "01:00", "03:00"], ["Two", "03:00", "04:00"], ["Three", "04:00", "05:00"]])
      expect(instants(items)).toEqual([
        ["One", "2026-03-29T00:00:00.000Z", "2026-03-29T01:00:00.000Z"],
        ["Two", "2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z"],
        ["Three", "2026-03-29T02:00:00.000Z", "2026-03-29T03:00:00.000Z"]
      ])
      // The clock times are the instants read in the zone (luxon).
      for (const i of items) expect([localClock(i.startsAt, zone), localClock(i.endsAt, zone)]).toEqual([i.startTime, i.endTime])
      for (const i of items) expect(i.conflicts).toEqual([])
    }))

  it.effect("fall back (2026-10-25, Europe/Berlin): hour-long floats from 01:00 show 02:00 twice", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const zone = "Europe/Berlin"
      const day = yield* newDay(org.apiKey, { date: "2026-10-25", timeZone: zone, startTime: "01:00" })
      for (const title of ["One", "Two", "Three", "Four"]) yield* newItem(org.apiKey, day.id, title, 60)
      const items = yield* dayItems(org.apiKey, day.id)
      expect(items.map((i) => [i.title, i.startTime, i.endTime])).toEqual([
        ["One", "01:00", "02:00"],
        ["Two", "02:00", "02:00"],
        ["Three", "02:00", "03:00"],
        ["Four", "03:00", "04:00"]
      ])
      expect(instants(items)).toEqual([
        ["One", "2026-10-24T23:00:00.000Z", "2026-10-25T00:00:00.000Z"],
        ["Two", "2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z"],
        ["Three", "2026-10-25T01:00:00.000Z", "2026-10-25T02:00:00.000Z"],
        ["Four", "2026-10-25T02:00:00.000Z", "2026-10-25T03:00:00.000Z"]
      ])
      for (const i of items) expect([localClock(i.startsAt, zone), localClock(i.endsAt, zone)]).toEqual([i.startTime, i.endTime])
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: list", (it) => {
  it.effect("a page of a day's list has the same computed times as the full list", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      for (const [title, minutes] of [["A", 30], ["B", 45], ["C", 15], ["D", 60], ["E", 20]] as const) {
        yield* newItem(org.apiKey, day.id, title, minutes)
      }
      const full = yield* dayItems(org.apiKey, day.id)
      expect(slots(full).map((s) => [s.title, s.startTime])).toEqual([["A", "09:00"], ["B", "09:30"], ["C", "10:15"], ["D", "10:30"], ["E", "11:30"]])
      const page2 = yield* get(`/api/v1/timeline-items?eventDayId=${day.id}&pageSize=2&page=2`, { key: org.apiKey })
      expect(page2.status).toBe(200)
      expect(page2.body).toEqual({ data: full.slice(2, 4), pagination: { page: 2, pageSize: 2, total: 5, totalPages: 3, hasMore: true } })
      const page3 = yield* get(`/api/v1/timeline-items?eventDayId=${day.id}&pageSize=2&page=3`, { key: org.apiKey })
      expect(page3.body).toEqual({ data: full.slice(4), pagination: { page: 3, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
    }))

  it.effect("a status filter gives the items' times as computed over the whole day", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      yield* newItem(org.apiKey, day.id, "A", 60, { status: "completed" })
      yield* newItem(org.apiKey, day.id, "B", 30)
      yield* newItem(org.apiKey, day.id, "C", 30, { status: "completed" })
      yield* newItem(org.apiKey, day.id, "D", 30, { status: "in-progress" })
      const full = yield* dayItems(org.apiKey, day.id)
      const completed = yield* get(`/api/v1/timeline-items?eventDayId=${day.id}&status=completed`, { key: org.apiKey })
      expect(completed.body).toEqual({ data: [full[0], full[2]], pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false } })
      expect(full[2]).toMatchObject({ title: "C", startTime: "10:30" })
      expect((yield* get("/api/v1/timeline-items?status=in-progress", { key: org.apiKey })).body.data).toEqual([full[3]])
      expect((yield* get("/api/v1/timeline-items?status=skipped", { key: org.apiKey })).body.data).toEqual([])
    }))

  it.effect("without a filter the list is ordered by the day's date, then the day's order", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const key = org.apiKey
      const late = yield* newDay(key, { date: "2026-08-01" })
      const early = yield* newDay(key, { date: "2026-07-01" })
      yield* newItem(key, late.id, "L0", 10)
      yield* newItem(key, early.id, "E0", 10)
      yield* newItem(key, late.id, "L1", 10)
      yield* newItem(key, early.id, "E1", 10)
      yield* newItem(key, early.id, "E-first", 10, { sortOrder: 0 })
      const all = yield* get("/api/v1/timeline-items", { key })
      expect(all.status).toBe(200)
      expect(all.body.data.map((i: any) => [i.title, i.sortOrder, i.startTime])).toEqual([
        ["E-first", 0, "09:00"],
        ["E0", 1, "09:10"],
        ["E1", 2, "09:20"],
        ["L0", 0, "09:00"],
        ["L1", 1, "09:10"]
      ])
      expect(all.body.pagination).toEqual({ page: 1, pageSize: 25, total: 5, totalPages: 1, hasMore: false })
      // Moving the late day before the early one reorders the list.
      expect((yield* patch(`/api/v1/event-days/${late.id}`, { date: "2026-06-01" }, { key })).status).toBe(200)
      expect((yield* get("/api/v1/timeline-items", { key })).body.data.map((i: any) => i.title)).toEqual(["L0", "L1", "E-first", "E0", "E1"])
    }))

  it.effect("bad filter values are 400; an unknown day lists nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (const query of ["eventDayId=abc", "eventDayId=", "status=done", "status=SKIPPED", "pageSize=0", "pageSize=101", "page=1.5", "updatedSince=soon"]) {
        expectError(yield* get(`/api/v1/timeline-items?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      expect((yield* get(`/api/v1/timeline-items?eventDayId=${NIL}`, { key: org.apiKey })).body).toEqual({
        data: [],
        pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false }
      })
    }))
})

layer(TestServerLive, REAL_CLOCK)("timeline items: access", (it) => {
  it.effect("another organization's item is 404 on every operation and never listed; a malformed id is 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirDay = yield* newDay(theirs.apiKey)
      const theirItem = yield* newItem(theirs.apiKey, theirDay.id, "Theirs", 30)
      const path = `/api/v1/timeline-items/${theirItem.id}`
      expectError(yield* get(path, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(path, { title: "Mine" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(path, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/timeline-items/${NIL}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/timeline-items/${NIL}`, { title: "X" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/timeline-items/${NIL}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/timeline-items/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch("/api/v1/timeline-items/not-a-uuid", { title: "X" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del("/api/v1/timeline-items/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/timeline-items", { key: mine.apiKey })).body.pagination.total).toBe(0)
      expect((yield* get(`/api/v1/timeline-items?eventDayId=${theirDay.id}`, { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(path, { key: theirs.apiKey })).body).toEqual(theirItem)
    }))

  it.effect("401 without or with a bad key; 403 without the timeline-items scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const day = yield* newDay(owner.apiKey)
      const item = yield* newItem(owner.apiKey, day.id, "Owned", 30)
      const path = `/api/v1/timeline-items/${item.id}`
      const body = { eventDayId: day.id, title: "T", durationMinutes: 30 }

      const missing = yield* get("/api/v1/timeline-items")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/timeline-items", body), 401, "unauthorized")
      expectError(yield* get(path), 401, "unauthorized")
      expectError(yield* patch(path, { title: "X" }), 401, "unauthorized")
      expectError(yield* del(path), 401, "unauthorized")
      expectError(yield* get("/api/v1/timeline-items", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* patch(path, { title: "X" }, { bearer: owner.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")

      const reader = yield* server.organization(["timeline-items:read", "event-days:write"])
      expect((yield* get("/api/v1/timeline-items", { key: reader.apiKey })).status).toBe(200)
      const readerDay = yield* newDay(reader.apiKey)
      for (
        const res of [
          yield* post("/api/v1/timeline-items", { ...body, eventDayId: readerDay.id }, { key: reader.apiKey }),
          yield* patch(`/api/v1/timeline-items/${NIL}`, { title: "X" }, { key: reader.apiKey }),
          yield* del(`/api/v1/timeline-items/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("timeline-items:write")
      }
      expect((yield* get("/api/v1/timeline-items", { key: reader.apiKey })).body.pagination.total).toBe(0)

      const writer = yield* server.organization(["timeline-items:write", "event-days:write"])
      for (const res of [yield* get("/api/v1/timeline-items", { key: writer.apiKey }), yield* get(`/api/v1/timeline-items/${NIL}`, { key: writer.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("timeline-items:read")
      }
      const writerDay = yield* newDay(writer.apiKey)
      expect((yield* post("/api/v1/timeline-items", { ...body, eventDayId: writerDay.id }, { key: writer.apiKey })).status).toBe(201)

      // The event-days scopes do not reach timeline items.
      const daysOnly = yield* server.organization(["event-days:read", "event-days:write"])
      expectError(yield* get("/api/v1/timeline-items", { key: daysOnly.apiKey }), 403, "forbidden")

      expect((yield* get(path, { key: owner.apiKey })).body).toEqual(item)
    }))
})
