import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { canonicalJson, fingerprintInput, isReplayable, isValidIdempotencyKey } from "./Idempotency.js"

/** JSON values without undefined (what a request body can hold). */
const json = fc.jsonValue()

/** The same value written with its object keys in another order and with white space. */
const reorder = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v, i) => reorder(v, seed + i))
  if (value === null || typeof value !== "object") return value
  const entries = Object.entries(value)
  const shuffled = seed % 2 === 0 ? entries.reverse() : entries
  return Object.fromEntries(shuffled.map(([k, v], i) => [k, reorder(v, seed + i + 1)]))
}

describe("idempotency fingerprint", () => {
  prop("key order and white space do not change it", [json, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 4 })], ([value, seed, indent]) => {
    const a = fingerprintInput("POST", "/api/v1/clients", JSON.stringify(value))
    const b = fingerprintInput("POST", "/api/v1/clients", JSON.stringify(reorder(value, seed), null, indent))
    expect(b).toBe(a)
  })

  prop("any change of a value changes it", [fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), json, { minKeys: 1 }), fc.jsonValue()], ([body, replacement]) => {
    const key = Object.keys(body)[0]
    fc.pre(canonicalJson(body[key]) !== canonicalJson(replacement))
    const changed = { ...body, [key]: replacement }
    expect(fingerprintInput("POST", "/p", JSON.stringify(changed))).not.toBe(fingerprintInput("POST", "/p", JSON.stringify(body)))
  })

  prop("method and path are part of it", [json], ([value]) => {
    const body = JSON.stringify(value)
    expect(fingerprintInput("POST", "/api/v1/clients", body)).not.toBe(fingerprintInput("PATCH", "/api/v1/clients", body))
    expect(fingerprintInput("POST", "/api/v1/clients", body)).not.toBe(fingerprintInput("POST", "/api/v1/contacts", body))
  })

  it("keys: 1 to 255 printable characters", () => {
    expect(isValidIdempotencyKey("a".repeat(255))).toBe(true)
    expect(isValidIdempotencyKey("a".repeat(256))).toBe(false)
    expect(isValidIdempotencyKey("")).toBe(false)
  })

  prop("replayable: 2xx and 4xx of the handler, never 5xx, 401, 403, 429 or a validation failure", [fc.integer({ min: 100, max: 599 }), fc.boolean()], ([status, validation]) => {
    const stored = isReplayable(status, validation)
    if (validation || status >= 500 || status < 200 || [401, 403, 429].includes(status)) expect(stored).toBe(false)
    else expect(stored).toBe(true)
  })
})
