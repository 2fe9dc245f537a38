import { expect, layer } from "@effect/vitest"
import { created, del, expectError, expectInvalid, get, newClientProject, NIL, patch, post, type Response, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect } from "effect"

/** The server runs on the real clock (the TestClock of the test services stands at 1970). */
const REAL_CLOCK = { excludeTestServices: true } as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const NO_VENUE = { name: null, latitude: null, longitude: null }

const newDay = (key: string, body: Record<string, unknown> = {}) => created("/api/v1/event-days", key, { date: "2026-06-20", ...body })

const newItem = (key: string, eventDayId: string, body: Record<string, unknown> = {}) =>
  created("/api/v1/timeline-items", key, { eventDayId, title: "Item", durationMinutes: 30, ...body })

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

const ids = (res: Response) => res.body.data.map((d: any) => d.id)

/** `count` key moments named m0, m1, ... */
const manyMoments = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}`, "12:00"]))

layer(TestServerLive, REAL_CLOCK)("event days: create", (it) => {
  it.effect("a day with only a date takes every default: no project, UTC, 09:00, no key moments, no venue", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const before = Date.now()
      const res = yield* post("/api/v1/event-days", { date: "2026-06-20" }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        projectId: null,
        date: "2026-06-20",
        timeZone: "UTC",
        startTime: "09:00",
        keyMoments: {},
        venue: NO_VENUE,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(res.body.updatedAt).toBe(res.body.createdAt)
      // Stamped on the real clock.
      expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(before - 5_000)
      expect(Date.parse(res.body.createdAt)).toBeLessThanOrEqual(Date.now() + 5_000)
      expect((yield* get(`/api/v1/event-days/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
    }))

  it.effect("a day with every field given is read back as written", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const res = yield* post("/api/v1/event-days", {
        projectId: project.id,
        date: "2026-06-20",
        timeZone: "Europe/Berlin",
        startTime: "10:30",
        keyMoments: { ceremony: "16:00", "first-dance": "20:15", "cake-2": "22:00" },
        venue: { name: "Schloss", latitude: 52.52, longitude: 13.405 }
      }, { key: org.apiKey })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        projectId: project.id,
        date: "2026-06-20",
        timeZone: "Europe/Berlin",
        startTime: "10:30",
        keyMoments: { ceremony: "16:00", "first-dance": "20:15", "cake-2": "22:00" },
        venue: { name: "Schloss", latitude: 52.52, longitude: 13.405 },
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect((yield* get(`/api/v1/event-days/${res.body.id}`, { key: org.apiKey })).body).toEqual(res.body)
    }))

  it.effect("a venue given in part has null for the fields not given", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      expect((yield* newDay(org.apiKey, { venue: { name: "Barn" } })).venue).toEqual({ name: "Barn", latitude: null, longitude: null })
      expect((yield* newDay(org.apiKey, { venue: { latitude: 0, longitude: 0 } })).venue).toEqual({ name: null, latitude: 0, longitude: 0 })
      expect((yield* newDay(org.apiKey, { venue: {} })).venue).toEqual(NO_VENUE)
      expect((yield* newDay(org.apiKey, { venue: { name: null, latitude: null, longitude: null } })).venue).toEqual(NO_VENUE)
    }))

  it.effect("the bounds are accepted: 50 key moments, a 50-character key, 00:00 and 23:59, ±90 and ±180", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const fifty = yield* newDay(org.apiKey, { keyMoments: manyMoments(50), startTime: "00:00" })
      expect(Object.keys(fifty.keyMoments)).toHaveLength(50)
      expect(fifty.startTime).toBe("00:00")
      const longKey = "a".repeat(50)
      const edge = yield* newDay(org.apiKey, { keyMoments: { [longKey]: "23:59" }, startTime: "23:59", venue: { latitude: 90, longitude: -180 } })
      expect(edge).toMatchObject({ keyMoments: { [longKey]: "23:59" }, startTime: "23:59", venue: { latitude: 90, longitude: -180 } })
      const south = yield* newDay(org.apiKey, { venue: { name: "x".repeat(200), latitude: -90, longitude: 180 } })
      expect(south.venue).toEqual({ name: "x".repeat(200), latitude: -90, longitude: 180 })
      expect((yield* newDay(org.apiKey, { timeZone: "America/New_York", date: "2028-02-29" })).date).toBe("2028-02-29")
    }))
})

layer(TestServerLive, REAL_CLOCK)("event days: validation", (it) => {
  it.effect("400 invalid_payload on bad dates, zones, start times, key moments, venues and unknown fields; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const d = "2026-06-20"
      const bad: Array<[unknown, string]> = [
        [{}, "date"],
        [{ date: null }, "date"],
        [{ date: "2026-02-30" }, "date"],
        [{ date: "2026-6-20" }, "date"],
        [{ date: "20/06/2026" }, "date"],
        [{ date: "2026-06-20T10:00:00Z" }, "date"],
        [{ date: d, timeZone: "Mars/Base" }, "timeZone"],
        [{ date: d, timeZone: "" }, "timeZone"],
        [{ date: d, timeZone: null }, "timeZone"],
        [{ date: d, startTime: "24:00" }, "startTime"],
        [{ date: d, startTime: "9:00" }, "startTime"],
        [{ date: d, startTime: "09:60" }, "startTime"],
        [{ date: d, startTime: "09:00:00" }, "startTime"],
        [{ date: d, startTime: "9am" }, "startTime"],
        [{ date: d, keyMoments: { Ceremony: "16:00" } }, "keyMoments"],
        [{ date: d, keyMoments: { "first dance": "16:00" } }, "keyMoments"],
        [{ date: d, keyMoments: { "": "16:00" } }, "keyMoments"],
        [{ date: d, keyMoments: { ["a".repeat(51)]: "16:00" } }, "keyMoments"],
        [{ date: d, keyMoments: { ceremony: "24:00" } }, "keyMoments"],
        [{ date: d, keyMoments: { ceremony: "4pm" } }, "keyMoments"],
        [{ date: d, keyMoments: { ceremony: 16 } }, "keyMoments"],
        [{ date: d, keyMoments: manyMoments(51) }, "keyMoments"],
        [{ date: d, keyMoments: null }, "keyMoments"],
        [{ date: d, venue: { latitude: 91, longitude: 0 } }, "venue"],
        [{ date: d, venue: { latitude: -90.5, longitude: 0 } }, "venue"],
        [{ date: d, venue: { latitude: 0, longitude: 181 } }, "venue"],
        [{ date: d, venue: { latitude: 52.52 } }, "venue"],
        [{ date: d, venue: { longitude: 13.4 } }, "venue"],
        [{ date: d, venue: { latitude: 52.52, longitude: null } }, "venue"],
        [{ date: d, venue: { latitude: "52.52", longitude: "13.4" } }, "venue"],
        [{ date: d, venue: { name: "x".repeat(201) } }, "venue"],
        [{ date: d, venue: { name: "Barn", city: "Berlin" } }, "venue"],
        [{ date: d, projectId: "not-a-uuid" }, "projectId"],
        [{ date: d, colour: "blue" }, "colour"],
        [{ date: d, id: NIL }, "id"],
        [{ date: d, createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ date: d, updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"]
      ]
      for (const [body, field] of bad) {
        const res = yield* post("/api/v1/event-days", body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 400 })
        expectInvalid(res, field)
      }
      expect((yield* get("/api/v1/event-days", { key: org.apiKey })).body.pagination.total).toBe(0)
    }))

  it.effect("a latitude out of range is reported at venue.latitude", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      expectInvalidAt(yield* post("/api/v1/event-days", { date: "2026-06-20", venue: { latitude: 91, longitude: 0 } }, { key: org.apiKey }), [
        "venue",
        "latitude"
      ])
    }))

  it.effect("a projectId that is not a project of the organization is 400 linked_record_not_found; nothing is created", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirProject = yield* newClientProject(theirs.apiKey)
      expectUnknownLink(yield* post("/api/v1/event-days", { date: "2026-06-20", projectId: theirProject.id }, { key: mine.apiKey }), "projectId")
      expectUnknownLink(yield* post("/api/v1/event-days", { date: "2026-06-20", projectId: NIL }, { key: mine.apiKey }), "projectId")
      expect((yield* get("/api/v1/event-days", { key: mine.apiKey })).body.pagination.total).toBe(0)
      expect((yield* get("/api/v1/event-days", { key: theirs.apiKey })).body.pagination.total).toBe(0)
    }))
})

layer(TestServerLive, REAL_CLOCK)("event days: update", (it) => {
  it.effect("PATCH replaces keyMoments whole and leaves the other fields as they were", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, {
        timeZone: "Europe/Berlin",
        startTime: "10:00",
        keyMoments: { ceremony: "16:00", dinner: "19:00" },
        venue: { name: "Barn", latitude: 52.52, longitude: 13.405 }
      })
      const res = yield* patch(`/api/v1/event-days/${day.id}`, { keyMoments: { speeches: "20:00" } }, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ...day, keyMoments: { speeches: "20:00" }, updatedAt: expect.stringMatching(TIMESTAMP) })
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(day.updatedAt))
      expect((yield* get(`/api/v1/event-days/${day.id}`, { key: org.apiKey })).body).toEqual(res.body)
      const emptied = yield* patch(`/api/v1/event-days/${day.id}`, { keyMoments: {} }, { key: org.apiKey })
      expect(emptied.status).toBe(200)
      expect(emptied.body.keyMoments).toEqual({})
    }))

  it.effect("PATCH replaces the venue whole: the venue fields not given become null", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey, { venue: { name: "Barn", latitude: 52.52, longitude: 13.405 } })
      const renamed = yield* patch(`/api/v1/event-days/${day.id}`, { venue: { name: "Chapel" } }, { key: org.apiKey })
      expect(renamed.status).toBe(200)
      expect(renamed.body.venue).toEqual({ name: "Chapel", latitude: null, longitude: null })
      const located = yield* patch(`/api/v1/event-days/${day.id}`, { venue: { latitude: -33.87, longitude: 151.21 } }, { key: org.apiKey })
      expect(located.body.venue).toEqual({ name: null, latitude: -33.87, longitude: 151.21 })
      const cleared = yield* patch(`/api/v1/event-days/${day.id}`, { venue: {} }, { key: org.apiKey })
      expect(cleared.body.venue).toEqual(NO_VENUE)
      expect((yield* get(`/api/v1/event-days/${day.id}`, { key: org.apiKey })).body).toEqual(cleared.body)
    }))

  it.effect("PATCH sets date, zone, start time and project, clears the project with null; {} changes nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const day = yield* newDay(org.apiKey)
      const path = `/api/v1/event-days/${day.id}`
      const updated = yield* patch(path, { date: "2026-07-04", timeZone: "America/New_York", startTime: "14:15", projectId: project.id }, { key: org.apiKey })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({
        ...day,
        date: "2026-07-04",
        timeZone: "America/New_York",
        startTime: "14:15",
        projectId: project.id,
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      const unchanged = yield* patch(path, {}, { key: org.apiKey })
      expect(unchanged.status).toBe(200)
      expect(unchanged.body).toEqual(updated.body)
      const detached = yield* patch(path, { projectId: null }, { key: org.apiKey })
      expect(detached.status).toBe(200)
      expect(detached.body).toEqual({ ...updated.body, projectId: null, updatedAt: expect.stringMatching(TIMESTAMP) })
    }))

  it.effect("a bad PATCH is 400 and changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      const theirProject = yield* newClientProject(other.apiKey)
      const day = yield* newDay(org.apiKey, { keyMoments: { ceremony: "16:00" }, venue: { name: "Barn", latitude: 1, longitude: 2 } })
      const path = `/api/v1/event-days/${day.id}`
      const bad: Array<[unknown, string]> = [
        [{ date: null }, "date"],
        [{ date: "2026-02-29" }, "date"],
        [{ timeZone: "Mars/Base" }, "timeZone"],
        [{ startTime: "24:00" }, "startTime"],
        [{ startTime: "9:00" }, "startTime"],
        [{ keyMoments: { "Bad Key": "10:00" } }, "keyMoments"],
        [{ keyMoments: { ceremony: "16:60" } }, "keyMoments"],
        [{ keyMoments: manyMoments(51) }, "keyMoments"],
        [{ venue: { latitude: 91, longitude: 0 } }, "venue"],
        [{ venue: { latitude: 10 } }, "venue"],
        [{ venue: null }, "venue"],
        [{ startTime: "11:00", colour: "blue" }, "colour"],
        [{ id: NIL }, "id"],
        [{ createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"]
      ]
      for (const [body, field] of bad) {
        const res = yield* patch(path, body, { key: org.apiKey })
        expect({ body, status: res.status }).toEqual({ body, status: 400 })
        expectInvalid(res, field)
      }
      expectUnknownLink(yield* patch(path, { projectId: theirProject.id }, { key: org.apiKey }), "projectId")
      expectUnknownLink(yield* patch(path, { projectId: NIL, startTime: "11:00" }, { key: org.apiKey }), "projectId")
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(day)
    }))
})

layer(TestServerLive, REAL_CLOCK)("event days: list", (it) => {
  it.effect("newest first, paginated, with true totals past the end", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const created: Array<string> = []
      for (const date of ["2026-06-01", "2026-05-01", "2026-07-01", "2026-04-01", "2026-08-01"]) {
        created.push((yield* newDay(org.apiKey, { date })).id)
      }
      const newestFirst = [...created].reverse()
      const all = yield* get("/api/v1/event-days", { key: org.apiKey })
      expect(all.status).toBe(200)
      expect(ids(all)).toEqual(newestFirst)
      expect(all.body.pagination).toEqual({ page: 1, pageSize: 25, total: 5, totalPages: 1, hasMore: false })
      const page2 = yield* get("/api/v1/event-days?pageSize=2&page=2", { key: org.apiKey })
      expect(ids(page2)).toEqual(newestFirst.slice(2, 4))
      expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
      const page3 = yield* get("/api/v1/event-days?pageSize=2&page=3", { key: org.apiKey })
      expect(ids(page3)).toEqual(newestFirst.slice(4))
      expect(page3.body.pagination.hasMore).toBe(false)
      const past = yield* get("/api/v1/event-days?pageSize=2&page=7", { key: org.apiKey })
      expect(past.body).toEqual({ data: [], pagination: { page: 7, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
    }))

  it.effect("filter projectId lists only that project's days; a bad filter value is 400", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const a = yield* newClientProject(org.apiKey, "A")
      const b = yield* newClientProject(org.apiKey, "B")
      const a1 = yield* newDay(org.apiKey, { projectId: a.id, date: "2026-06-19" })
      const loose = yield* newDay(org.apiKey)
      const b1 = yield* newDay(org.apiKey, { projectId: b.id })
      const a2 = yield* newDay(org.apiKey, { projectId: a.id, date: "2026-06-20" })
      const ofA = yield* get(`/api/v1/event-days?projectId=${a.id}`, { key: org.apiKey })
      expect(ofA.body).toEqual({ data: [a2, a1], pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false } })
      expect(ids(yield* get(`/api/v1/event-days?projectId=${b.id}`, { key: org.apiKey }))).toEqual([b1.id])
      expect(ids(yield* get(`/api/v1/event-days?projectId=${a.id}&pageSize=1&page=2`, { key: org.apiKey }))).toEqual([a1.id])
      expect((yield* get(`/api/v1/event-days?projectId=${NIL}`, { key: org.apiKey })).body.data).toEqual([])
      expect(ids(yield* get("/api/v1/event-days", { key: org.apiKey }))).toEqual([a2.id, b1.id, loose.id, a1.id])
      for (const query of ["projectId=abc", "projectId=", "pageSize=0", "pageSize=101", "page=0", "page=1.5", "updatedSince=yesterday"]) {
        expectError(yield* get(`/api/v1/event-days?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
    }))
})

layer(TestServerLive, REAL_CLOCK)("event days: delete", (it) => {
  it.effect("DELETE is 204 with no body; the day is gone", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const keep = yield* newDay(org.apiKey)
      const removed = yield* del(`/api/v1/event-days/${day.id}`, { key: org.apiKey })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/event-days/${day.id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/event-days/${day.id}`, { startTime: "10:00" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/event-days/${day.id}`, { key: org.apiKey }), 404, "not_found")
      expect(ids(yield* get("/api/v1/event-days", { key: org.apiKey }))).toEqual([keep.id])
    }))

  it.effect("DELETE of a day with items is 409 record_has_dependents; once they are gone it is deleted", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const day = yield* newDay(org.apiKey)
      const item = yield* newItem(org.apiKey, day.id)
      expectError(yield* del(`/api/v1/event-days/${day.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expect((yield* get(`/api/v1/event-days/${day.id}`, { key: org.apiKey })).body).toEqual(day)
      expect((yield* get(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey })).status).toBe(200)
      expect((yield* del(`/api/v1/timeline-items/${item.id}`, { key: org.apiKey })).status).toBe(204)
      expect((yield* del(`/api/v1/event-days/${day.id}`, { key: org.apiKey })).status).toBe(204)
      expectError(yield* get(`/api/v1/event-days/${day.id}`, { key: org.apiKey }), 404, "not_found")
    }))
})

layer(TestServerLive, REAL_CLOCK)("event days: access", (it) => {
  it.effect("another organization's day is 404 on every operation and never listed; a malformed id is 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirDay = yield* newDay(theirs.apiKey)
      const path = `/api/v1/event-days/${theirDay.id}`
      expectError(yield* get(path, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(path, { startTime: "11:00" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(path, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/event-days/${NIL}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/event-days/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch("/api/v1/event-days/not-a-uuid", { startTime: "11:00" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del("/api/v1/event-days/not-a-uuid", { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/event-days", { key: mine.apiKey })).body.pagination.total).toBe(0)
      expect((yield* get(path, { key: theirs.apiKey })).body).toEqual(theirDay)
    }))

  it.effect("401 without or with a bad key; 403 without the event-days scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const day = yield* newDay(owner.apiKey)
      const path = `/api/v1/event-days/${day.id}`

      const missing = yield* get("/api/v1/event-days")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/event-days", { date: "2026-06-20" }), 401, "unauthorized")
      expectError(yield* get(path), 401, "unauthorized")
      expectError(yield* patch(path, { startTime: "11:00" }), 401, "unauthorized")
      expectError(yield* del(path), 401, "unauthorized")
      expectError(yield* get("/api/v1/event-days", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* post("/api/v1/event-days", { date: "2026-06-20" }, { bearer: owner.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")

      const reader = yield* server.organization(["event-days:read"])
      expect((yield* get("/api/v1/event-days", { key: reader.apiKey })).status).toBe(200)
      for (
        const res of [
          yield* post("/api/v1/event-days", { date: "2026-06-20" }, { key: reader.apiKey }),
          yield* patch(`/api/v1/event-days/${NIL}`, { startTime: "11:00" }, { key: reader.apiKey }),
          yield* del(`/api/v1/event-days/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("event-days:write")
      }
      expect((yield* get("/api/v1/event-days", { key: reader.apiKey })).body.pagination.total).toBe(0)

      const writer = yield* server.organization(["event-days:write"])
      for (const res of [yield* get("/api/v1/event-days", { key: writer.apiKey }), yield* get(`/api/v1/event-days/${NIL}`, { key: writer.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("event-days:read")
      }
      expect((yield* post("/api/v1/event-days", { date: "2026-06-20" }, { key: writer.apiKey })).status).toBe(201)

      // The timeline-items scopes do not reach event days.
      const timelineOnly = yield* server.organization(["timeline-items:read", "timeline-items:write"])
      expectError(yield* get("/api/v1/event-days", { key: timelineOnly.apiKey }), 403, "forbidden")
      expectError(yield* post("/api/v1/event-days", { date: "2026-06-20" }, { key: timelineOnly.apiKey }), 403, "forbidden")

      expect((yield* get(path, { key: owner.apiKey })).body).toEqual(day)
    }))
})
