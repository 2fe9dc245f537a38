/**
 * Effect 4's generator yields `-0` (for integers too). JSON text has no `-0` (`JSON.stringify(-0)` is `"0"`),
 * but `toEqual` tells `-0` from `0`: a generated value's JSON form goes through `withoutNegativeZero` before
 * it is compared with what came back from JSON text. Everything else is copied as it is.
 */
export const withoutNegativeZero = (value: unknown): unknown => {
  if (Object.is(value, -0)) return 0
  if (Array.isArray(value)) return value.map(withoutNegativeZero)
  if (value === null || typeof value !== "object" || value instanceof Date) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutNegativeZero(item)]))
}
