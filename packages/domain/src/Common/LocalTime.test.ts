import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { DateTime, IANAZone, Settings } from "luxon"
import { CLOCK_TIME, clockMinutes, dayClock, formatClock, isTimeZone } from "./LocalTime.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo", "Asia/Kathmandu"] as const

/** Days on which the clocks change (2026), and a few around them. */
const CHANGE_DAYS = [
  "2026-03-29", "2026-10-25", // Europe/Berlin
  "2026-03-08", "2026-11-01", // America/New_York
  "2026-04-05", "2026-10-04", // Australia/Lord_Howe (half an hour)
  "2026-03-28", "2026-03-30", "2026-10-24", "2026-10-26", "2026-11-02"
] as const

const iso = (d: Date) => d.toISOString().slice(0, 10)
const anyDate = fc.date({ min: new Date("1990-01-01T00:00:00Z"), max: new Date("2060-12-31T00:00:00Z"), noInvalidDate: true }).map(iso)
const date = fc.oneof(fc.constantFrom(...CHANGE_DAYS), anyDate)
const zone = fc.constantFrom(...ZONES)
const minuteOfDay = fc.integer({ min: 0, max: 1439 })

const wall = (instant: number, timeZone: string) => DateTime.fromMillis(instant, { zone: timeZone }).toFormat("yyyy-MM-dd'T'HH:mm")
const hhmm = (instant: number, timeZone: string) => DateTime.fromMillis(instant, { zone: timeZone }).toFormat("HH:mm")

/**
 * The oracle: every instant that the zone's clocks show as `date` `minutes`, found by walking the
 * instants from 15 hours before to 13 hours after the local time read as UTC, in steps of 15 minutes
 * (every offset of these zones is a whole number of quarter hours), and formatting each with luxon.
 */
const instantsShowing = (dateText: string, minutes: number, timeZone: string): Array<number> => {
  const local = Date.parse(`${dateText}T00:00:00Z`) + minutes * MINUTE
  const wanted = `${dateText}T${formatClock(minutes)}`
  const found: Array<number> = []
  for (let t = local - 15 * HOUR; t <= local + 13 * HOUR; t += 15 * MINUTE) {
    if (wall(t, timeZone) === wanted) found.push(t)
  }
  return found
}

describe("clock times", () => {
  prop("HH:MM and minutes since midnight go both ways", [minuteOfDay, fc.integer({ min: -5, max: 5 })], ([m, days]) => {
    const text = formatClock(m + days * 1440)
    expect(text).toMatch(CLOCK_TIME)
    expect(clockMinutes(text)).toBe(m)
  })

  it("formats and reads the edges", () => {
    expect(formatClock(0)).toBe("00:00")
    expect(formatClock(1439)).toBe("23:59")
    expect(formatClock(1440)).toBe("00:00")
    expect(formatClock(-1)).toBe("23:59")
    expect(clockMinutes("09:05")).toBe(545)
    expect(CLOCK_TIME.test("24:00")).toBe(false)
    expect(CLOCK_TIME.test("9:05")).toBe(false)
  })

  it("knows IANA zones", () => {
    for (const name of ZONES) expect(isTimeZone(name)).toBe(true)
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false)
    expect(isTimeZone("")).toBe(false)
  })
})

describe("dayClock", () => {
  prop("instantOf is the instant the zone's clocks show; the later of two, forward over a gap", [date, zone, minuteOfDay], ([d, z, m]) => {
    const clock = dayClock(d, z)
    const found = instantsShowing(d, m, z)
    const instant = clock.instantOf(m)
    if (found.length > 0) {
      expect(instant).toBe(Math.max(...found))
    } else {
      // Skipped by the clocks: moved forward by the gap, which is what luxon does too.
      const [year, month, day] = d.split("-").map(Number)
      const luxon = DateTime.fromObject({ year, month, day, hour: Math.floor(m / 60), minute: m % 60 }, { zone: z }).toMillis()
      expect(instant).toBe(luxon)
      const gap = IANAZone.create(z).offset(instant) - IANAZone.create(z).offset(instant - 6 * HOUR)
      expect(gap).toBeGreaterThan(0)
      expect(clock.clockTimeOf(instant)).toBe(formatClock(m + gap))
    }
  }, { fastCheck: { numRuns: 300 } })

  prop("every minute of a change day is where the zone's clocks show it", [fc.constantFrom(...CHANGE_DAYS), zone], ([d, z]) => {
    const clock = dayClock(d, z)
    for (let m = 0; m < 1440; m += 15) {
      const found = instantsShowing(d, m, z)
      if (found.length > 0) expect(clock.instantOf(m)).toBe(Math.max(...found))
      else expect(wall(clock.instantOf(m), z) > `${d}T${formatClock(m)}`).toBe(true)
    }
  }, { fastCheck: { numRuns: 20 } })

  it("the minutes around each change are exact", () => {
    const days: ReadonlyArray<readonly [string, string]> = [
      ["2026-03-29", "Europe/Berlin"], ["2026-10-25", "Europe/Berlin"],
      ["2026-03-08", "America/New_York"], ["2026-11-01", "America/New_York"],
      ["2026-04-05", "Australia/Lord_Howe"], ["2026-10-04", "Australia/Lord_Howe"]
    ]
    for (const [d, z] of days) {
      const clock = dayClock(d, z)
      const zone = IANAZone.create(z)
      // The change, found by asking luxon minute by minute.
      let change = clock.dayStart
      while (zone.offset(change) === zone.offset(clock.dayStart)) change += MINUTE
      expect(change).toBeLessThan(clock.dayEnd)
      for (const instant of [change - MINUTE, change - 1, change, change + MINUTE - 1, change + MINUTE]) {
        expect(clock.clockTimeOf(instant)).toBe(hhmm(instant, z))
      }
      // The local minutes on either side of the change, by the oracle.
      const before = clockMinutes(hhmm(change - MINUTE, z))
      const after = clockMinutes(hhmm(change, z))
      for (const m of [before - 1, before, before + 1, after - 1, after, after + 1]) {
        const found = instantsShowing(d, m, z)
        if (found.length > 0) expect(clock.instantOf(m)).toBe(Math.max(...found))
        else expect(clock.instantOf(m)).toBe(change + (m - before - 1) * MINUTE)
      }
    }
  })

  prop("clockTimeOf is the zone's clock, near the day and far from it", [date, zone, fc.integer({ min: -7 * 1440, max: 8 * 1440 })], ([d, z, minutes]) => {
    const clock = dayClock(d, z)
    const instant = clock.dayStart + minutes * MINUTE
    expect(clock.clockTimeOf(instant)).toBe(hhmm(instant, z))
  }, { fastCheck: { numRuns: 500 } })

  prop("the day runs from its local midnight to the next one", [date, zone], ([d, z]) => {
    const clock = dayClock(d, z)
    const start = DateTime.fromISO(d, { zone: z }).startOf("day")
    expect(clock.dayStart).toBe(start.toMillis())
    expect(clock.dayEnd).toBe(start.plus({ days: 1 }).startOf("day").toMillis())
    // The clocks read 00:00 at the day's start, except where midnight itself was skipped (Sao Paulo's
    // clocks went from 00:00 to 01:00 on the first day of summer time until 2019): then 01:00.
    expect(clock.clockTimeOf(clock.dayStart)).toBe(hhmm(start.toMillis(), z))
    expect(clock.clockTimeOf(clock.dayEnd)).toBe(hhmm(start.plus({ days: 1 }).startOf("day").toMillis(), z))
    expect(clock.instantOf(0)).toBe(clock.dayStart)
  })

  it("Sao Paulo, 2018-11-04: midnight was skipped, the day starts at 01:00", () => {
    const clock = dayClock("2018-11-04", "America/Sao_Paulo")
    expect(clock.dayStart).toBe(Date.parse("2018-11-04T03:00:00Z"))
    expect(clock.clockTimeOf(clock.dayStart)).toBe("01:00")
    expect(clock.dayEnd - clock.dayStart).toBe(23 * HOUR)
  })

  it("Berlin: the day the clocks spring forward has 23 hours, 02:30 does not exist", () => {
    const clock = dayClock("2026-03-29", "Europe/Berlin")
    expect(clock.dayEnd - clock.dayStart).toBe(23 * HOUR)
    expect(clock.dayStart).toBe(Date.parse("2026-03-28T23:00:00Z"))
    expect(clock.instantOf(clockMinutes("01:59"))).toBe(Date.parse("2026-03-29T00:59:00Z"))
    expect(clock.instantOf(clockMinutes("02:30"))).toBe(Date.parse("2026-03-29T01:30:00Z"))
    expect(clock.clockTimeOf(clock.instantOf(clockMinutes("02:30")))).toBe("03:30")
    expect(clock.instantOf(clockMinutes("03:00"))).toBe(Date.parse("2026-03-29T01:00:00Z"))
  })

  it("Berlin: the day the clocks fall back has 25 hours, 02:30 is the later of the two", () => {
    const clock = dayClock("2026-10-25", "Europe/Berlin")
    expect(clock.dayEnd - clock.dayStart).toBe(25 * HOUR)
    expect(clock.instantOf(clockMinutes("02:30"))).toBe(Date.parse("2026-10-25T01:30:00Z"))
    expect(clock.clockTimeOf(Date.parse("2026-10-25T00:30:00Z"))).toBe("02:30")
    expect(clock.clockTimeOf(Date.parse("2026-10-25T01:30:00Z"))).toBe("02:30")
    expect(clock.instantOf(clockMinutes("03:00"))).toBe(Date.parse("2026-10-25T02:00:00Z"))
  })

  it("New York: 23 and 25 hours; 02:30 in spring is 03:30, 01:30 in autumn the later", () => {
    const spring = dayClock("2026-03-08", "America/New_York")
    expect(spring.dayEnd - spring.dayStart).toBe(23 * HOUR)
    expect(spring.instantOf(clockMinutes("02:30"))).toBe(Date.parse("2026-03-08T07:30:00Z"))
    expect(spring.clockTimeOf(spring.instantOf(clockMinutes("02:30")))).toBe("03:30")
    const autumn = dayClock("2026-11-01", "America/New_York")
    expect(autumn.dayEnd - autumn.dayStart).toBe(25 * HOUR)
    expect(autumn.instantOf(clockMinutes("01:30"))).toBe(Date.parse("2026-11-01T06:30:00Z"))
    expect(autumn.clockTimeOf(Date.parse("2026-11-01T05:30:00Z"))).toBe("01:30")
  })

  it("Lord Howe changes by half an hour; Kolkata never changes", () => {
    const spring = dayClock("2026-10-04", "Australia/Lord_Howe")
    expect(spring.dayEnd - spring.dayStart).toBe(23.5 * HOUR)
    expect(spring.clockTimeOf(spring.instantOf(clockMinutes("02:15")))).toBe("02:45")
    const autumn = dayClock("2026-04-05", "Australia/Lord_Howe")
    expect(autumn.dayEnd - autumn.dayStart).toBe(24.5 * HOUR)
    const kolkata = dayClock("2026-03-29", "Asia/Kolkata")
    expect(kolkata.dayEnd - kolkata.dayStart).toBe(24 * HOUR)
    expect(kolkata.instantOf(clockMinutes("05:30"))).toBe(Date.parse("2026-03-29T00:00:00Z"))
  })

  it("does not depend on the date it runs on (luxon alone picks an ambiguous time by today's offset)", () => {
    const now = Settings.now
    const read = () => [
      dayClock("2026-10-25", "Europe/Berlin").instantOf(clockMinutes("02:30")),
      dayClock("2026-11-01", "America/New_York").instantOf(clockMinutes("01:30")),
      dayClock("2026-03-29", "Europe/Berlin").instantOf(clockMinutes("02:30"))
    ]
    try {
      const readings = [Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15), Date.UTC(2031, 7, 1)].map((at) => {
        Settings.now = () => at
        return read()
      })
      for (const reading of readings) {
        expect(reading).toEqual([Date.parse("2026-10-25T01:30:00Z"), Date.parse("2026-11-01T06:30:00Z"), Date.parse("2026-03-29T01:30:00Z")])
      }
    } finally {
      Settings.now = now
    }
  })
})
