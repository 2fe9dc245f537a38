import { Schema, SchemaAST, SchemaTransformation } from "effect"

/**
 * Request bodies reject fields they do not know (a typo must not pass silently), and a refusal names every
 * problem of the body, not only the first (`errors: "all"`). Parse options in
 * Effect 4: the Api applies it to every payload (`HttpApi.PayloadParseOptions`), and code that decodes
 * a body itself passes it: `Schema.decodeUnknownEffect(S)(body, strict)`.
 */
export const strict: SchemaAST.ParseOptions = { onExcessProperty: "error", errors: "all" }

/**
 * Test-generation hints for a filter (Effect 4 generates values itself, from constraints): strings
 * drawn from these patterns. The filter stays the rule; the hint only makes generated values pass it.
 */
export const generatedAs = (first: RegExp, ...rest: Array<RegExp>) => {
  const pattern = (p: RegExp) => ({ source: p.source, flags: p.flags })
  return { arbitraryConstraint: { patterns: [pattern(first), ...rest.map(pattern)] as const } }
}

/** Test-generation hint: whole numbers (they pass every "at most n decimal places" filter). */
export const generatedWhole = { arbitraryConstraint: { number: "integer" as const } }

/**
 * Any 8-4-4-4-12 hex string, as PostgreSQL's uuid accepts (Effect 4's `isUUID` demands a version
 * digit and a variant, which ids such as 00000000-0000-0000-0000-000000000001 lack).
 */
export const Uuid = Schema.String.annotate({ format: "uuid", description: "A UUID v4 string" }).check(
  Schema.isPattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/u, {
    message: "must be a UUID",
    ...generatedAs(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
)

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
export const DateOnly = Schema.String.annotate({ format: "date", description: "YYYY-MM-DD" }).check(
  Schema.makeFilter(isCalendarDate, {
    identifier: "Date",
    message: "must be a date in the form YYYY-MM-DD",
    ...generatedAs(/^(19[0-9]{2}|2[01][0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$/)
  })
)
export type DateOnly = typeof DateOnly.Type

/** An ISO 8601 UTC timestamp with milliseconds on output; any ISO 8601 date-time on input. */
export const DateTime = Schema.Date.annotate({
  // The JSON form (the OpenAPI document's, too) is a string with the date-time format: Effect's own Date
  // codec says only "string".
  toCodecJson: () => Schema.link<Date>()(Schema.String.annotate({ format: "date-time" }), SchemaTransformation.dateFromString)
})

/** A time stamp given as a query parameter (for example `updatedSince`). */
export const DateTimeParam = Schema.String.check(
  Schema.makeFilter(
    (s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)),
    { message: "must be an ISO 8601 date-time, for example 2026-11-21T09:30:00Z" }
  )
).pipe(
  Schema.decodeTo(
    Schema.Date,
    SchemaTransformation.transform({ decode: (s: string) => new Date(s), encode: (d: Date) => d.toISOString() })
  )
)

/**
 * Text that PostgreSQL can store and give back unchanged: no NUL character and no lone UTF-16
 * surrogate (Node would write U+FFFD in its place, so the value would not read back equal).
 */
export const Text = Schema.String.check(
  Schema.makeFilter((s: string) => !s.includes("\u0000") && s.isWellFormed(), {
    message: "must be valid Unicode text without NUL characters"
  })
)

/** A string bounded in length, with a clear message. */
export const BoundedString = (min: number, max: number) =>
  Text.check(
    Schema.isMinLength(min, { message: min === 1 ? "must not be empty" : `must be at least ${min} characters` }),
    Schema.isMaxLength(max, { message: `must be at most ${max} characters` })
  )

export const MaxString = (max: number) => Text.check(Schema.isMaxLength(max, { message: `must be at most ${max} characters` }))

export const Email = Text.check(
  Schema.isMaxLength(320, { message: "must be at most 320 characters" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/u, {
    message: "must be an email address",
    ...generatedAs(/^[a-z0-9_-]{1,20}@[a-z0-9_-]{1,20}\.(com|io|studio)$/)
  })
).annotate({ format: "email" })

/** A percentage, 0..100, with at most 4 decimal places (8.875 is a real sales-tax rate). */
export const Percent = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.isBetween({ minimum: 0, maximum: 100 }, { message: "must be between 0 and 100" }),
  Schema.makeFilter((n: number) => Number(n.toFixed(4)) === n, { message: "must have at most 4 decimal places", ...generatedWhole })
)

/** A non-negative amount of money with at most two fraction digits (the organization's currency). */
export const MoneyAmount = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number" }),
  Schema.isGreaterThanOrEqualTo(0, { message: "must be 0 or more" }),
  Schema.isLessThanOrEqualTo(9_000_000_000_000, { message: "is too large" }),
  Schema.makeFilter((n: number) => Number(n.toFixed(2)) === n, { message: "must have at most 2 decimal places", ...generatedWhole })
)

/** A positive whole number written in a query string: digits only. */
export const IntFromString = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,9}$/u, { message: "must be a whole number" })
).pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform({ decode: (s: string) => Number(s), encode: (n: number) => String(n) })
  )
)

/** `true` or `false` in a query string. */
export const BooleanParam = Schema.Literals(["true", "false"]).annotate({ message: "must be true or false" }).pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({ decode: (s: "true" | "false") => s === "true", encode: (b: boolean) => (b ? "true" : "false") })
  )
)

/**
 * The number of the n-th record of an organization's series (`Sql/Series.ts` hands out n): the prefix and at
 * least four digits. INV-0001, S-0042, C-10000.
 */
export const formatSeriesNumber = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(4, "0")}`
