/**
 * The cascade's speed (issue 6): one event day of 1,000 items over 5 tracks, timed in-process.
 *
 *   npx tsx --conditions=source scripts/bench/cascade.ts
 *
 * env:
 *   CASCADE_RUNS     measured runs per variant (default 500)
 *   CASCADE_WARMUP   warm-up runs per variant, not measured (default 200)
 *   CASCADE_ITEMS    items per day (default 1000)
 *
 * Variants (a fixed seed, so every run of the script times the same days):
 *   realistic     mostly floats, some fixed, key-moment and golden-hour anchors (a few of them with an
 *                 unknown key), some skipped, 5 tracks; Europe/Berlin, summer, venue with coordinates
 *   all-floats    1,000 floats, 5 tracks
 *   anchor-heavy  half of the items anchored (fixed, key-moment, golden-hour), 5 tracks
 *   dst-day       the realistic mix on Berlin's fall-back day (2026-10-25, 25 hours)
 *
 * Each run is one call of `cascade(day, items)` on a fresh copy of the items array (the cascade builds
 * its own day clock and sun times per call, as the server does on every read). Prints median, p95, min
 * and mean in ms; exit code 1 when a realistic-mix median is 2 ms or more (the budget).
 */
import { cascade, type CascadeDay, type CascadeItem } from "@bizops/domain/TimelineItems/Cascade"
import type { AnchorType, TimelineItemStatus } from "@bizops/domain/TimelineItems/TimelineItem"
import { performance } from "node:perf_hooks"

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number >= 1, got ${raw}`)
  return n
}

const RUNS = intEnv("CASCADE_RUNS", 500)
const WARMUP = intEnv("CASCADE_WARMUP", 200)
const ITEMS = intEnv("CASCADE_ITEMS", 1000)
const BUDGET_MS = 2

/** mulberry32: a small seeded generator, so that the days are the same on every run. */
const random = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TRACKS: ReadonlyArray<string | null> = [null, "photo", "video", "catering", "music"]
const KEYS = ["ceremony", "speeches", "first-dance", "cake", "exit"] as const
const SUN_KEYS = ["sunset", "sunrise", "golden-hour-evening", "golden-hour-morning"] as const

const dayOf = (date: string): CascadeDay => ({
  date,
  timeZone: "Europe/Berlin",
  startTime: "08:00",
  keyMoments: { ceremony: "14:00", speeches: "17:30", "first-dance": "20:30", cake: "21:30", exit: "23:30" },
  venue: { latitude: 52.52, longitude: 13.405 }
})

/** Shares of the anchor types among the items that are not skipped; the rest are floats. */
interface Mix {
  readonly name: string
  readonly date: string
  readonly fixed: number
  readonly keyMoment: number
  readonly goldenHour: number
  readonly none: number
  readonly skipped: number
}

const MIXES: ReadonlyArray<Mix> = [
  { name: "realistic", date: "2026-06-20", fixed: 0.05, keyMoment: 0.04, goldenHour: 0.02, none: 0.04, skipped: 0.05 },
  { name: "all-floats", date: "2026-06-20", fixed: 0, keyMoment: 0, goldenHour: 0, none: 0, skipped: 0 },
  { name: "anchor-heavy", date: "2026-06-20", fixed: 0.2, keyMoment: 0.15, goldenHour: 0.15, none: 0, skipped: 0.05 },
  { name: "dst-day", date: "2026-10-25", fixed: 0.05, keyMoment: 0.04, goldenHour: 0.02, none: 0.04, skipped: 0.05 }
]

const pad = (n: number, width: number) => String(n).padStart(width, "0")
const clock = (minutes: number) => `${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}`

const itemsOf = (mix: Mix, count: number): Array<CascadeItem> => {
  const rnd = random(0x5eed)
  const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1))
  const createdBase = Date.UTC(2026, 0, 1)
  const items: Array<CascadeItem> = []
  for (let i = 0; i < count; i++) {
    const track = TRACKS[i % TRACKS.length]
    const r = rnd()
    let anchorType: AnchorType = "float"
    let anchorKey: string | null = null
    let requestedStartTime: string | null = null
    let edge = mix.fixed
    if (r < edge) {
      anchorType = "fixed"
      requestedStartTime = clock(int(6 * 60, 23 * 60))
    } else if (r < (edge += mix.keyMoment)) {
      anchorType = "key-moment"
      // One key-moment anchor in ten names a key the day does not have (unknown_key_moment).
      anchorKey = rnd() < 0.1 ? "rehearsal" : KEYS[int(0, KEYS.length - 1)]
    } else if (r < (edge += mix.goldenHour)) {
      anchorType = "golden-hour"
      anchorKey = SUN_KEYS[int(0, SUN_KEYS.length - 1)]
    } else if (r < (edge += mix.none)) {
      anchorType = "none"
    }
    const status: TimelineItemStatus = rnd() < mix.skipped ? "skipped" : rnd() < 0.2 ? "completed" : "pending"
    items.push({
      id: `00000000-0000-4000-8000-${pad(i, 12)}`,
      // sortOrder ties (two items in ten share one) and createdAt ties exercise the whole order.
      sortOrder: Math.floor(i / TRACKS.length) * 10 + (rnd() < 0.2 ? 0 : int(0, 9)),
      createdAt: new Date(createdBase + int(0, 50) * 1000),
      trackId: track,
      durationMinutes: int(1, 30),
      bufferBeforeMinutes: rnd() < 0.7 ? 0 : int(1, 15),
      bufferAfterMinutes: rnd() < 0.7 ? 0 : int(1, 15),
      travelTimeMinutes: rnd() < 0.9 ? 0 : int(5, 45),
      anchorType,
      anchorKey,
      requestedStartTime,
      status
    })
  }
  // The order in which the rows come is not the day's order.
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    const t = items[i]
    items[i] = items[j]
    items[j] = t
  }
  return items
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

interface Row {
  readonly name: string
  readonly counts: string
  readonly median: number
  readonly p95: number
  readonly min: number
  readonly mean: number
}

// Keeps the results reachable, so the work cannot be optimised away.
let sink = 0

const measure = (mix: Mix): Row => {
  const day = dayOf(mix.date)
  const items = itemsOf(mix, ITEMS)
  const counts = new Map<string, number>()
  for (const item of items) {
    const key = item.status === "skipped" ? "skipped" : item.anchorType
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const check = cascade(day, items)
  if (check.size !== items.length) throw new Error(`${mix.name}: ${check.size} schedules for ${items.length} items`)

  for (let r = 0; r < WARMUP; r++) sink += cascade(day, items.slice()).size
  const times: Array<number> = []
  for (let r = 0; r < RUNS; r++) {
    const input = items.slice()
    const t0 = performance.now()
    const result = cascade(day, input)
    const t1 = performance.now()
    sink += result.size
    times.push(t1 - t0)
  }
  times.sort((a, b) => a - b)
  return {
    name: mix.name,
    counts: [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k} ${v}`).join(", "),
    median: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    min: times[0],
    mean: times.reduce((a, b) => a + b, 0) / times.length
  }
}

const rows = MIXES.map(measure)
const ms = (x: number) => x.toFixed(3).padStart(8)
console.log(`cascade: ${ITEMS} items, ${TRACKS.length} tracks, ${WARMUP} warm-up + ${RUNS} measured runs per variant (node ${process.version})`)
console.log(`${"variant".padEnd(14)}${"median".padStart(8)}${"p95".padStart(9)}${"min".padStart(9)}${"mean".padStart(9)}   ms   items`)
for (const row of rows) {
  console.log(`${row.name.padEnd(14)}${ms(row.median)} ${ms(row.p95)} ${ms(row.min)} ${ms(row.mean)}        ${row.counts}`)
}
const over = rows.filter((row) => row.median >= BUDGET_MS)
if (sink === 0) console.log("(no results)")
if (over.length > 0) {
  console.log(`OVER BUDGET (median >= ${BUDGET_MS} ms): ${over.map((row) => row.name).join(", ")}`)
  process.exitCode = 1
} else {
  console.log(`every median is under ${BUDGET_MS} ms`)
}
