import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { base64UrlEncode, checkChallengeMethod, CODE_CHALLENGE_METHODS, isCodeChallenge, isCodeVerifier } from "./Pkce.js"

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const of = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet.split("")), minLength, maxLength })
/** A character outside the verifier alphabet. */
const outside = fc.oneof(
  fc.constantFrom("+", "/", "=", " ", "%", "!", "*", "\n", "é", "\u0000", "😀"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => !UNRESERVED.includes(c))
)
/** Lengths around the bounds, and any other. */
const lengthNear = (...bounds: ReadonlyArray<number>) =>
  fc.oneof(fc.constantFrom(...bounds.flatMap((b) => [b - 1, b, b + 1])), fc.nat(200))
const ofLength = (alphabet: string, length: fc.Arbitrary<number>) => length.chain((n) => of(alphabet, n, n))
const insert = (s: string, c: string, at: number) => {
  const i = at % (s.length + 1)
  return s.slice(0, i) + c + s.slice(i)
}
const s256 = (verifier: string) => base64UrlEncode(createHash("sha256").update(verifier, "ascii").digest())

describe("code verifier", () => {
  prop("unreserved characters: a verifier exactly when 43 to 128 long", [ofLength(UNRESERVED, lengthNear(43, 128))], ([v]) => {
    expect(isCodeVerifier(v)).toBe(v.length >= 43 && v.length <= 128)
  })

  prop("one character outside the unreserved set refuses it", [ofLength(UNRESERVED, fc.oneof(fc.constantFrom(42, 127), fc.integer({ min: 42, max: 127 }))), outside, fc.nat()], ([v, c, at]) => {
    expect(isCodeVerifier(insert(v, c, at))).toBe(false)
  })

  it("bounds", () => {
    expect(isCodeVerifier("a".repeat(42))).toBe(false)
    expect(isCodeVerifier("a".repeat(43))).toBe(true)
    expect(isCodeVerifier("~".repeat(128))).toBe(true)
    expect(isCodeVerifier("-".repeat(129))).toBe(false)
    expect(isCodeVerifier(`${"a".repeat(43)}\n`)).toBe(false)
  })
})

describe("code challenge", () => {
  prop("the S256 challenge of any verifier is a challenge", [of(UNRESERVED, 43, 128)], ([v]) => {
    expect(isCodeChallenge(s256(v))).toBe(true)
  })

  prop("base64url characters: a challenge exactly when 43 long", [ofLength(BASE64URL, lengthNear(43))], ([c]) => {
    expect(isCodeChallenge(c)).toBe(c.length === 43)
  })

  prop("padding, standard base64 or any other character, added or in place of one, refuses it", [of(BASE64URL, 43, 43), fc.oneof(fc.constantFrom("=", "==", "+", "/", ".", "~", " ", "\n"), outside), fc.nat(), fc.boolean()], ([c, bad, at, replace]) => {
    expect(isCodeChallenge(c)).toBe(true)
    const i = at % 43
    expect(isCodeChallenge(replace ? c.slice(0, i) + bad + c.slice(i + 1) : insert(c, bad, at))).toBe(false)
    expect(isCodeChallenge(`${c}=`)).toBe(false)
  })
})

describe("code_challenge_method", () => {
  it("S256 only", () => {
    expect(CODE_CHALLENGE_METHODS).toEqual(["S256"])
    expect(checkChallengeMethod("S256")).toEqual(Result.succeed("S256"))
  })

  prop("anything else, missing or plain included, is refused with a message saying S256 is required", [fc.oneof(fc.constantFrom(undefined, "plain", "s256", "S256 ", "SHA256", "S512", ""), fc.string().filter((s) => s !== "S256"))], ([m]) => {
    const result = checkChallengeMethod(m)
    expect(Result.isFailure(result)).toBe(true)
    Result.mapError(result, (message) => {
      expect(message).toContain("S256")
      expect(message).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/)
    })
  })

  it("plain and a missing method are named", () => {
    expect(checkChallengeMethod("plain")).toEqual(Result.fail("code_challenge_method plain is not supported; S256 is required"))
    expect(checkChallengeMethod(undefined)).toEqual(Result.fail("code_challenge_method is required and must be S256"))
  })
})

describe("base64UrlEncode", () => {
  prop("is Node's base64url", [fc.uint8Array({ maxLength: 100 })], ([bytes]) => {
    expect(base64UrlEncode(bytes)).toBe(Buffer.from(bytes).toString("base64url"))
  })

  it("RFC 4648 test vectors, without padding", () => {
    const enc = (s: string) => base64UrlEncode(new TextEncoder().encode(s))
    expect(["", "f", "fo", "foo", "foob", "fooba", "foobar"].map(enc)).toEqual(["", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"])
    expect(base64UrlEncode(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_")
  })

  it("RFC 7636 appendix B", () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    expect(isCodeVerifier(verifier)).toBe(true)
    const challenge = s256(verifier)
    expect(challenge).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    expect(isCodeChallenge(challenge)).toBe(true)
    // The verifier of appendix B is itself the base64url of these 32 octets.
    const octets = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121]
    expect(base64UrlEncode(new Uint8Array(octets))).toBe(verifier)
  })
})
