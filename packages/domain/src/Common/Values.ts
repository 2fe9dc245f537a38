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
).annotations({ identifier: "Date", format: "date", description: "YYYY-MM-DD" })
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

/** A string bounded in length, with a clear message. */
export const BoundedString = (min: number, max: number) =>
  Schema.String.pipe(
    Schema.minLength(min, { message: () => min === 1 ? "must not be empty" : `must be at least ${min} characters` }),
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` })
  )

export const MaxString = (max: number) =>
  Schema.String.pipe(Schema.maxLength(max, { message: () => `must be at most ${max} characters` }))

export const Email = Schema.String.pipe(
  Schema.maxLength(320, { message: () => "must be at most 320 characters" }),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" })
).annotations({ format: "email" })

/** A percentage, 0..100. */
export const Percent = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.between(0, 100, { message: () => "must be between 0 and 100" })
)

/** A non-negative amount of money with at most two fraction digits (the organization's currency). */
export const MoneyAmount = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.greaterThanOrEqualTo(0, { message: () => "must be 0 or more" }),
  Schema.lessThanOrEqualTo(9_000_000_000_000, { message: () => "is too large" }),
  Schema.filter((n) => Number.isInteger(Math.round(n * 100)) && Math.abs(Math.round(n * 100) - n * 100) < 1e-6, {
    message: () => "must have at most 2 decimal places"
  })
)

/** A positive whole number written in a query string: digits only. */
export const IntFromString = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,9}$/, { message: () => "must be a whole number" }),
  Schema.transform(Schema.Number, { strict: true, decode: (s) => Number(s), encode: (n) => String(n) })
)
