import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as fc from "fast-check"
import { prop } from "@bizops/testkit/Prop"
import { Webhook } from "standardwebhooks"
import {
  deliveryHeaders,
  GENERATED_SECRET_BYTES,
  generateSecret,
  isValidSecret,
  secretFromBytes,
  sign,
  USER_AGENT
} from "./Signing.js"

// Verification is always done by the `standardwebhooks` package, never by our own code. It refuses
// timestamps more than 5 minutes from its clock, so the tests sign with the current time.
const nowSeconds = () => Math.floor(Date.now() / 1000)

const verify = (secret: string, body: string, headers: Record<string, string>): unknown => new Webhook(secret).verify(body, headers)

const secretArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(secretFromBytes)
const bodyArb = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 200 }).map((text) => JSON.stringify({ text })),
  fc.jsonValue().map((value) => JSON.stringify(value))
)
const idArb = fc.uuid()

const headersOf = (secret: string, id: string, body: string, timestampSeconds = nowSeconds()): Record<string, string> => ({
  ...deliveryHeaders({ id, timestampSeconds, body, secret })
})

describe("Standard Webhooks signatures, verified by the standardwebhooks package", () => {
  prop("every signed delivery verifies", [secretArb, idArb, bodyArb], ([secret, id, body]) => {
    expect(verify(secret, body, headersOf(secret, id, body))).toEqual(JSON.parse(body))
  })

  prop("a tampered body fails", [secretArb, idArb, bodyArb, bodyArb], ([secret, id, body, other]) => {
    fc.pre(other !== body)
    const headers = headersOf(secret, id, body)
    expect(() => verify(secret, other, headers)).toThrow(/No matching signature/)
  })

  prop("a tampered timestamp fails", [secretArb, idArb, bodyArb, fc.integer({ min: -240, max: 240 })], ([secret, id, body, shift]) => {
    fc.pre(shift !== 0)
    const headers = headersOf(secret, id, body)
    const tampered = { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + shift) }
    expect(() => verify(secret, body, tampered)).toThrow(/No matching signature/)
  })

  prop("a tampered id fails", [secretArb, idArb, idArb, bodyArb], ([secret, id, otherId, body]) => {
    fc.pre(id !== otherId)
    const tampered = { ...headersOf(secret, id, body), "webhook-id": otherId }
    expect(() => verify(secret, body, tampered)).toThrow(/No matching signature/)
  })

  prop("another secret fails", [secretArb, secretArb, idArb, bodyArb], ([secret, other, id, body]) => {
    fc.pre(secret !== other)
    expect(() => verify(other, body, headersOf(secret, id, body))).toThrow(/No matching signature/)
  })

  it("a stale signature is refused by the receiver (the timestamp is signed and checked)", () => {
    const secret = generateSecret()
    const body = "{}"
    expect(() => verify(secret, body, headersOf(secret, "e", body, nowSeconds() - 3600))).toThrow(/too old/)
  })

  it("matches the Standard Webhooks reference vector", () => {
    // From the Standard Webhooks reference libraries' tests.
    expect(sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "{\"test\": 2432232314}"))
      .toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("signs the same with a Redacted secret", () => {
    const secret = generateSecret()
    expect(sign(Redacted.make(secret), "id", 1_700_000_000, "{}")).toBe(sign(secret, "id", 1_700_000_000, "{}"))
  })

  it("refuses a timestamp that is not whole seconds", () => {
    const secret = generateSecret()
    expect(() => sign(secret, "id", 1_700_000_000.5, "{}")).toThrow(RangeError)
    expect(() => sign(secret, "id", -1, "{}")).toThrow(RangeError)
    expect(() => sign(secret, "id", Number.NaN, "{}")).toThrow(RangeError)
    expect(() => deliveryHeaders({ id: "id", timestampSeconds: 1.5, body: "{}", secret: null })).toThrow(RangeError)
  })

  it("never puts the secret in an error message", () => {
    const invalid = "whsec_c2hvcnQ="
    expect(() => sign(invalid, "id", 1, "{}")).toThrow(/not valid/)
    try {
      sign(invalid, "id", 1, "{}")
    } catch (error) {
      expect(String(error)).not.toContain("c2hvcnQ")
    }
  })
})

describe("delivery headers", () => {
  it("with a secret: id, timestamp, signature, content type, user agent", () => {
    const secret = generateSecret()
    const headers = deliveryHeaders({ id: "0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11", timestampSeconds: 1_700_000_000, body: "{\"a\":1}", secret })
    expect(headers).toEqual({
      "webhook-id": "0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11",
      "webhook-timestamp": "1700000000",
      "webhook-signature": sign(secret, "0b5c7a52-5f8e-4f1e-9b0b-3c9a3b7e2d11", 1_700_000_000, "{\"a\":1}"),
      "content-type": "application/json",
      "user-agent": USER_AGENT
    })
    expect(USER_AGENT).toBe("bizops-webhooks/1")
    const asRecord: Record<string, string> = headers
    expect(Object.keys(asRecord)).toHaveLength(5)
  })

  it("without a secret: no signature header, and the receiver's verification fails", () => {
    for (const secret of [null, undefined]) {
      const headers = deliveryHeaders({ id: "e1", timestampSeconds: nowSeconds(), body: "{}", secret })
      expect(headers).not.toHaveProperty("webhook-signature")
      expect(headers["webhook-id"]).toBe("e1")
      expect(headers["content-type"]).toBe("application/json")
      expect(() => verify(generateSecret(), "{}", { ...headers })).toThrow(/Missing required headers/)
    }
    expect(deliveryHeaders({ id: "e1", timestampSeconds: 1, body: "{}" })).not.toHaveProperty("webhook-signature")
  })
})

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
/** The same bytes, spelled with one of the unused bits before the padding set (decoders ignore it). */
const withPaddingBitSet = (base64: string): string => {
  const last = base64.replace(/=+$/, "")
  const char = last.charAt(last.length - 1)
  return last.slice(0, -1) + ALPHABET.charAt(ALPHABET.indexOf(char) + 1) + base64.slice(last.length)
}

describe("secrets", () => {
  it("generateSecret: whsec_ + base64 of 32 random bytes, valid, accepted by the receiver library, new each time", () => {
    const secrets = Array.from({ length: 50 }, generateSecret)
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(GENERATED_SECRET_BYTES)
      expect(isValidSecret(secret)).toBe(true)
    }
    expect(new Set(secrets).size).toBe(secrets.length)
    const secret = secrets[0]
    expect(verify(secret, "{}", headersOf(secret, "e", "{}"))).toEqual({})
  })

  prop("every 24..64-byte secret is valid", [fc.uint8Array({ minLength: 24, maxLength: 64 })], ([bytes]) => {
    const secret = secretFromBytes(bytes)
    expect(isValidSecret(secret)).toBe(true)
    expect(Buffer.from(secret.slice(6), "base64").equals(Buffer.from(bytes))).toBe(true)
  })

  prop("shorter or longer secrets are not", [fc.oneof(fc.uint8Array({ maxLength: 23 }), fc.uint8Array({ minLength: 65, maxLength: 100 }))], ([bytes]) => {
    expect(isValidSecret("whsec_" + Buffer.from(bytes).toString("base64"))).toBe(false)
    expect(() => secretFromBytes(bytes)).toThrow(RangeError)
  })

  it.each([
    ["no prefix", Buffer.alloc(32, 7).toString("base64")],
    ["another prefix", "whsk_" + Buffer.alloc(32, 7).toString("base64")],
    ["unpadded base64", "whsec_" + Buffer.alloc(32, 7).toString("base64").replace(/=+$/, "")],
    ["url-safe alphabet", "whsec_" + Buffer.alloc(32, 0xfb).toString("base64url") + "="],
    ["non-canonical padding bits", "whsec_" + withPaddingBitSet(Buffer.alloc(32, 7).toString("base64"))],
    ["a space", "whsec_ " + Buffer.alloc(32, 7).toString("base64")],
    ["empty", ""],
    ["prefix only", "whsec_"]
  ])("refuses %s", (_, secret) => {
    expect(isValidSecret(secret)).toBe(false)
  })

  it("a spelling with a padding bit set decodes to the same bytes, yet is refused (one spelling per secret)", () => {
    const canonical = Buffer.alloc(32, 7).toString("base64")
    const other = withPaddingBitSet(canonical)
    expect(other).not.toBe(canonical)
    expect(Buffer.from(other, "base64").equals(Buffer.alloc(32, 7))).toBe(true)
    expect(isValidSecret("whsec_" + other)).toBe(false)
  })

  it("accepts the boundaries, 24 and 64 bytes", () => {
    expect(isValidSecret("whsec_" + Buffer.alloc(24, 1).toString("base64"))).toBe(true)
    expect(isValidSecret("whsec_" + Buffer.alloc(64, 1).toString("base64"))).toBe(true)
  })
})
