import { describe, expect } from "@effect/vitest"
import { WebhookSecret } from "@bizops/domain"
import { Schema } from "effect"
import * as fc from "fast-check"
import { prop } from "@bizops/testkit/Prop"
import { isValidSecret, secretFromBytes } from "./Signing.js"

const acceptedByApi = Schema.is(WebhookSecret)

/** The API's request schema and the signer must agree on what a secret is, or a stored secret could not sign. */
describe("the API and the signer agree on secrets", () => {
  prop("every secret made from 24 to 64 random bytes is accepted by both", [fc.uint8Array({ minLength: 24, maxLength: 64 })], ([bytes]) => {
    const secret = secretFromBytes(bytes)
    expect(acceptedByApi(secret)).toBe(true)
    expect(isValidSecret(secret)).toBe(true)
  })

  prop("base64 of any other length is refused by both", [fc.uint8Array({ minLength: 0, maxLength: 80 }).filter((b) => b.length < 24 || b.length > 64)], ([bytes]) => {
    const secret = `whsec_${Buffer.from(bytes).toString("base64")}`
    expect(acceptedByApi(secret)).toBe(false)
    expect(isValidSecret(secret)).toBe(false)
  })

  prop("any string", [fc.oneof(fc.string(), fc.string().map((s) => `whsec_${s}`), fc.base64String().map((s) => `whsec_${s}`))], ([s]) => {
    expect(acceptedByApi(s)).toBe(isValidSecret(s))
  })
})
