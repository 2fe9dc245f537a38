/**
 * Local clock times of a calendar day in an IANA time zone, and the instants they name. The offsets
 * come from luxon (the time-zone database of the platform's Intl), never from hand-written rules; this
 * module only remembers them: it asks luxon for the zone's offsets around the day once (about ten
 * questions, twenty on a day with a change) and reads every clock time of the day from those.
 */
import { IANAZone } from "luxon"

/** Whether a name is an IANA time zone the platform knows ("UTC", "Europe/Berlin", ...). */
export const isTimeZone = (name: string): boolean => IANAZone.isValidZone(name)

/** `HH:MM`, 24-hour, 00:00 to 23:59. */
export const CLOCK_TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/u

/** Minutes since midnight of a clock time `HH:MM`. */
export const clockMinutes = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

/** `HH:MM` of minutes since midnight (taken modulo a day). */
export const formatClock = (minutes: number): string => {
  const m = ((minutes % 1440) + 1440) % 1440
  const h = Math.floor(m / 60)
  const mm = m % 60
  return `${h < 10 ? "0" : ""}${h}:${mm < 10 ? "0" : ""}${mm}`
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** One calendar day in one zone. */
export interface DayClock {
  /** The instant (ms) of the local midnight that starts the day. */
  readonly dayStart: number
  /** The instant (ms) of the local midnight that ends it (23, 24 or 25 hours later). */
  readonly dayEnd: number
  /**
   * The instant of a local clock time of the day, in minutes since midnight. A time that the clocks
   * skip (spring forward) is moved forward by the gap, as luxon reads it; a time they repeat (fall
   * back) is the later instant, the second time the clocks show it. (luxon's DateTime.fromObject
   * picks between the two by the offset in force at the moment it is called, so a day read in summer
   * and the same day read in winter would differ; this does not depend on when it runs.)
   */
  readonly instantOf: (minutes: number) => number
  /** The local clock time `HH:MM` of an instant. */
  readonly clockTimeOf: (instant: number) => string
}

/**
 * The window of instants around a day that its clock times can name: UTC offsets lie between −12 and
 * +14 hours, so the local times from the day's midnight to the next one fall within [−15 h, +39 h] of
 * the day's midnight read as UTC.
 */
const WINDOW_BEFORE = 15 * HOUR
const WINDOW_AFTER = DAY + 15 * HOUR
/** The zone is asked every six hours over the window; no zone changes its offset twice within that. */
const STEP = 6 * HOUR

/** The day `date` (YYYY-MM-DD) in `timeZone`. */
export const dayClock = (date: string, timeZone: string): DayClock => {
  const zone = IANAZone.create(timeZone)
  /** The day's midnight read as if it were UTC: a local time of the day is `base + minutes`. */
  const base = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))

  // The zone's offsets over the window, from luxon: asked every six hours, each change found to the
  // millisecond by bisection (to the minute, then within the minute only when needed).
  const from = base - WINDOW_BEFORE
  const to = base + WINDOW_AFTER
  const firstOffset = zone.offset(from)
  const changeAt: Array<number> = []
  const changeTo: Array<number> = []
  let lastAt = from
  let lastOffset = firstOffset
  for (let t = from + STEP; t <= to; t += STEP) {
    const offset = zone.offset(t)
    // (An unknown zone has no offsets, NaN: nothing to look for.)
    if (offset !== lastOffset && !Number.isNaN(offset)) {
      // zone.offset(lo) === lastOffset, zone.offset(hi) !== lastOffset
      let lo = lastAt
      let hi = t
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE
        if (zone.offset(mid) === lastOffset) lo = mid
        else hi = mid
      }
      if (zone.offset(hi - 1) !== lastOffset) {
        while (hi - lo > 1) {
          const mid = lo + Math.floor((hi - lo) / 2)
          if (zone.offset(mid) === lastOffset) lo = mid
          else hi = mid
        }
      }
      changeAt.push(hi)
      changeTo.push(offset)
    }
    lastAt = t
    lastOffset = offset
  }
  const offsets = [...new Set([firstOffset, ...changeTo])]
  const smallestOffset = Math.min(...offsets)

  // Outside the window (a block far from its day), the zone is asked once per hour of UTC, exactly
  // only in an hour whose two ends differ.
  const hourOffsets = new Map<number, readonly [number, number]>()
  const farOffsetAt = (instant: number): number => {
    const hour = Math.floor(instant / HOUR)
    let ends = hourOffsets.get(hour)
    if (ends === undefined) {
      ends = [zone.offset(hour * HOUR), zone.offset((hour + 1) * HOUR - 1)]
      hourOffsets.set(hour, ends)
    }
    return ends[0] === ends[1] ? ends[0] : zone.offset(instant)
  }
  /** The zone's offset (minutes) at an instant. */
  const offsetAt = (instant: number): number => {
    if (instant < from || instant > to) return farOffsetAt(instant)
    let offset = firstOffset
    for (let k = 0; k < changeAt.length && instant >= changeAt[k]; k++) offset = changeTo[k]
    return offset
  }

  /** The instant of a local time (ms, read as UTC): the earlier or the later of two, forward over a gap. */
  const resolve = (local: number, later: boolean): number => {
    let found = NaN
    for (const offset of offsets) {
      const instant = local - offset * MINUTE
      if (offsetAt(instant) === offset && (Number.isNaN(found) || (later ? instant > found : instant < found))) found = instant
    }
    // In a gap no offset fits: the instant the old offset names, which the new one reads gap later.
    return Number.isNaN(found) ? local - smallestOffset * MINUTE : found
  }

  const dayStart = resolve(base, false)
  const dayEnd = resolve(base + DAY, false)
  const instantOf = (minutes: number): number => resolve(base + minutes * MINUTE, true)
  const clockTimeOf = (instant: number): string => formatClock(Math.floor((instant + offsetAt(instant) * MINUTE) / MINUTE))

  return { dayStart, dayEnd, instantOf, clockTimeOf }
}
