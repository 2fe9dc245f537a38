import { Schema } from "effect"

/** Request bodies reject fields they do not know (a typo must not pass silently). */
export const strict = { parseOptions: { onExcessProperty: "error" } } as const

export const Uuid = Schema.UUID.annotations({ description: "A UUID v4 string" })

export const OrganizationId = Uuid.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type
export const BusinessId = Uuid.pipe(Schema.brand("BusinessId"))
export type BusinessId = typeof BusinessId.Type

const isCalendarDate = (s: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (match === null) return false
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** A calendar date, `YYYY-MM-DD`. */
export const DateOnly = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a date in the form YYYY-MM-DD" })
).annotations({
  identifier: "Date",
  format: "date",
  description: "YYYY-MM-DD",
  arbitrary: () => (fc) =>
    fc.date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2199-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
})
export type DateOnly = typeof DateOnly.Type

/** An ISO 8601 UTC timestamp with milliseconds on output; any ISO 8601 date-time on input. */
export const DateTime = Schema.Date.annotations({ format: "date-time" })

/** A time stamp given as a query parameter (for example `updatedSince`). */
export const DateTimeParam = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: () => "must be an ISO 8601 date-time, for example 2026-11-21T09:30:00Z"
  }),
  Schema.transform(Schema.DateFromSelf, { strict: true, decode: (s) => new Date(s), encode: (d) => d.toISOString() })
)

/**
 * Text that PostgreSQL can store and give back unchanged: no NUL character and no lone UTF-16
 * surrogate (Node would write U+FFFD in its place, so the value would not read back equal).
 */
export const Text = Schema.String.pipe(
  Schema.filter((s) => !s.includes("\u0000") && s.isWellFormed(), {
    message: () => "must be valid Unicode text without NUL characters"
  })
)

/** A string bounded in length, with a clear message. */
export const BoundedString = (min: number, max: number) =>
  Text.pipe(
    Schema.minLength(min, { message: () => min === 1 ? "must not be empty" : `must be at least ${min} characters` }),
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` })
  )

export const MaxString = (max: number) =>
  Text.pipe(Schema.maxLength(max, { message: () => `must be at most ${max} characters` }))

const emailPart = (fc: typeof import("effect/FastCheck"), max: number) =>
  fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-_".split("")), minLength: 1, maxLength: max })

export const Email = Text.pipe(
  Schema.maxLength(320, { message: () => "must be at most 320 characters" }),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" })
).annotations({
  format: "email",
  arbitrary: () => (fc) =>
    fc.tuple(emailPart(fc, 20), emailPart(fc, 20), fc.constantFrom("com", "io", "studio")).map(([l, d, t]) => `${l}@${d}.${t}`)
})

/** A percentage, 0..100, with at most 4 decimal places (8.875 is a real sales-tax rate). */
export const Percent = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.between(0, 100, { message: () => "must be between 0 and 100" }),
  Schema.filter((n) => Number(n.toFixed(4)) === n, {
    message: () => "must have at most 4 decimal places"
  })
).annotations({ arbitrary: () => (fc) => fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 10_000) })

/** A non-negative amount of money with at most two fraction digits (the organization's currency). */
export const MoneyAmount = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.greaterThanOrEqualTo(0, { message: () => "must be 0 or more" }),
  Schema.lessThanOrEqualTo(9_000_000_000_000, { message: () => "is too large" }),
  Schema.filter((n) => Number(n.toFixed(2)) === n, {
    message: () => "must have at most 2 decimal places"
  })
).annotations({ arbitrary: () => (fc) => fc.integer({ min: 0, max: 100_000_000_000 }).map((minor) => minor / 100) })

/** A positive whole number written in a query string: digits only. */
export const IntFromString = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,9}$/, { message: () => "must be a whole number" }),
  Schema.transform(Schema.Number, { strict: true, decode: (s) => Number(s), encode: (n) => String(n) })
)
