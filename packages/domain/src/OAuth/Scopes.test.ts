import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { ALL_SCOPES, isKnownScope, RESOURCES } from "../Common/Auth.js"
import {
  describeScope,
  isOAuthScope,
  narrowScope,
  OAUTH_SCOPES,
  OFFLINE_ACCESS,
  OPENID,
  parseScope,
  type RequestedScope,
  scopeString,
  toApiScope,
  toOAuthScope
} from "./Scopes.js"

/** "read:clients" → "clients:read", written out here rather than taken from the module under test. */
const swap = (s: string): string => {
  const i = s.indexOf(":")
  return `${s.slice(i + 1)}:${s.slice(0, i)}`
}
const unique = (xs: ReadonlyArray<string>): Array<string> => xs.filter((x, i) => xs.indexOf(x) === i)
const expected = (tokens: ReadonlyArray<string>): RequestedScope => {
  const scopes = unique(tokens)
  return {
    scopes,
    apiScopes: scopes.filter((s) => s !== OPENID && s !== OFFLINE_ACCESS).map(swap),
    offlineAccess: scopes.includes(OFFLINE_ACCESS)
  }
}
/** RFC 6749 5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/

const access = fc.constantFrom("read", "write")
const resource = fc.constantFrom(...RESOURCES)
const oauthScope = fc.constantFrom(...OAUTH_SCOPES)
/** Scope tokens valid by RFC 6749 3.3 that are not supported OAuth scopes. */
const unsupportedToken = fc.oneof(
  fc.constantFrom(...ALL_SCOPES), // the API form
  fc.constantFrom("read:inquiries", "write:sales", "write:payouts", "read:unknown", "profile", "email", "OPENID", "Read:clients", "read:clients:read"),
  fc.stringMatching(/^[\x21\x23-\x5B\x5D-\x7E]{1,16}$/).filter((s) => !isOAuthScope(s))
)
const token = fc.oneof({ arbitrary: oauthScope, weight: 3 }, { arbitrary: unsupportedToken, weight: 1 })
const allowedSet = fc.subarray([...OAUTH_SCOPES])
/** Registered scopes, and a request made only of those (and openid), in any order, with duplicates. */
const allowedRequest = allowedSet.chain((allowed) =>
  fc.tuple(fc.constant(allowed), fc.array(fc.constantFrom(OPENID, ...allowed), { minLength: 1, maxLength: 15 }))
)
const spaces = fc.integer({ min: 1, max: 4 }).map((n) => " ".repeat(n))

describe("OAuth scope names", () => {
  prop("toOAuthScope and toApiScope are inverse over every API scope", [fc.constantFrom(...ALL_SCOPES)], ([api]) => {
    const oauth = toOAuthScope(api)
    expect(oauth).toBe(swap(api))
    expect(oauth.startsWith("read:") || oauth.startsWith("write:")).toBe(true)
    expect(toApiScope(oauth)).toBe(api)
  })

  prop("read:<r> / write:<r> maps exactly when the API scope exists", [access, resource], ([a, r]) => {
    const api = `${r}:${a}`
    expect(toApiScope(`${a}:${r}`)).toBe(isKnownScope(api) ? api : undefined)
  })

  prop("toApiScope is defined exactly for the supported scopes other than openid and offline_access", [fc.oneof(token, fc.string())], ([s]) => {
    expect(toApiScope(s) !== undefined).toBe(isOAuthScope(s) && s !== OPENID && s !== OFFLINE_ACCESS)
  })

  it("OAUTH_SCOPES is openid, offline_access and one OAuth scope per API scope", () => {
    expect(OAUTH_SCOPES).toEqual([OPENID, OFFLINE_ACCESS, ...ALL_SCOPES.map(swap)])
    expect(new Set(OAUTH_SCOPES).size).toBe(OAUTH_SCOPES.length)
    expect(OAUTH_SCOPES).toContain("read:clients")
    expect(OAUTH_SCOPES).toContain("write:inquiries")
    expect(OAUTH_SCOPES).not.toContain("read:inquiries")
    expect(OAUTH_SCOPES).not.toContain("write:sales")
    expect([OFFLINE_ACCESS, OPENID]).toEqual(["offline_access", "openid"])
  })

  prop("isOAuthScope is membership in OAUTH_SCOPES", [fc.oneof(token, fc.string())], ([s]) => {
    expect(isOAuthScope(s)).toBe(OAUTH_SCOPES.includes(s))
  })
})

describe("parseScope", () => {
  prop("accepts exactly the registered supported scopes (openid always), and names every offending token", [allowedSet, fc.array(token, { minLength: 1, maxLength: 10 })], ([allowed, tokens]) => {
    const result = parseScope(tokens.join(" "), allowed)
    const offending = tokens.filter((t) => !(OAUTH_SCOPES.includes(t) && (t === OPENID || allowed.includes(t))))
    if (offending.length === 0) {
      expect(result).toEqual(Result.succeed(expected(tokens)))
    } else {
      expect(Result.isFailure(result)).toBe(true)
      const message = Result.isFailure(result) ? result.failure : ""
      for (const t of offending) expect(message).toContain(t)
      expect(message).toMatch(ERROR_DESCRIPTION)
    }
  })

  prop("a request of registered scopes in any order, with duplicates, normalizes to the unique scopes in request order", [allowedRequest], ([[allowed, tokens]]) => {
    const result = parseScope(scopeString(tokens), allowed)
    expect(result).toEqual(Result.succeed(expected(tokens)))
    // The same set asked without duplicates, in another order, grants the same.
    const again = parseScope(scopeString([...unique(tokens)].reverse()), allowed)
    expect(Result.map(again, (g) => [...g.scopes].sort())).toEqual(Result.map(result, (g) => [...g.scopes].sort()))
    expect(Result.map(again, (g) => [...g.apiScopes].sort())).toEqual(Result.map(result, (g) => [...g.apiScopes].sort()))
  })

  prop("extra spaces (leading, trailing, repeated) change nothing", [allowedSet, fc.array(token, { minLength: 1, maxLength: 8 }), fc.array(spaces, { minLength: 12, maxLength: 12 }), fc.boolean(), fc.boolean()], ([allowed, tokens, gaps, lead, trail]) => {
    const loose = (lead ? gaps[10] : "") + tokens.map((t, i) => (i === 0 ? t : gaps[i % 10] + t)).join("") + (trail ? gaps[11] : "")
    expect(parseScope(loose, allowed)).toEqual(parseScope(tokens.join(" "), allowed))
  })

  prop("other whitespace or a character outside the scope-token set refuses the request without repeating it", [fc.array(oauthScope, { minLength: 1, maxLength: 5 }), fc.constantFrom("\t", "\n", "\r", "\"", "\\", "é", "\u0000", "\u007f", "\u00a0"), fc.nat()], ([tokens, bad, at]) => {
    const text = scopeString(tokens)
    const i = at % (text.length + 1)
    const result = parseScope(text.slice(0, i) + bad + text.slice(i), OAUTH_SCOPES)
    expect(Result.isFailure(result)).toBe(true)
    Result.mapError(result, (message) => expect(message).toMatch(ERROR_DESCRIPTION))
  })

  prop("every refusal is a valid error_description", [fc.oneof(fc.string(), fc.string({ unit: "binary" })), allowedSet], ([s, allowed]) => {
    Result.mapError(parseScope(s, allowed), (message) => expect(message).toMatch(ERROR_DESCRIPTION))
  })

  it("a missing or empty scope is refused", () => {
    for (const s of [undefined, "", " ", "   "]) {
      expect(parseScope(s, OAUTH_SCOPES)).toEqual(Result.fail("scope is required"))
    }
  })

  it("examples", () => {
    expect(parseScope("openid offline_access read:clients write:clients", ["offline_access", "read:clients", "write:clients"])).toEqual(
      Result.succeed({ scopes: ["openid", "offline_access", "read:clients", "write:clients"], apiScopes: ["clients:read", "clients:write"], offlineAccess: true })
    )
    expect(parseScope("openid", [])).toEqual(Result.succeed({ scopes: ["openid"], apiScopes: [], offlineAccess: false }))
    expect(parseScope("read:clients offline_access", ["read:clients"])).toEqual(Result.fail("scope not registered for this app: offline_access"))
    expect(parseScope("clients:read read:nothing", OAUTH_SCOPES)).toEqual(Result.fail("unknown scope: clients:read, read:nothing"))
  })
})

describe("narrowScope", () => {
  const granted = fc.subarray([...OAUTH_SCOPES], { minLength: 1 }).map((tokens) => {
    const g = parseScope(scopeString(tokens), tokens)
    if (Result.isFailure(g)) throw new Error(g.failure)
    return g.success
  })

  prop("no scope keeps the granted scope", [granted], ([g]) => {
    expect(narrowScope(g, undefined)).toEqual(Result.succeed(g))
  })

  prop("accepts exactly the granted scopes (openid only if granted) and never widens", [granted, fc.array(token, { minLength: 1, maxLength: 10 })], ([g, tokens]) => {
    const result = narrowScope(g, scopeString(tokens))
    if (tokens.every((t) => g.scopes.includes(t))) {
      expect(result).toEqual(Result.succeed(expected(tokens)))
    } else {
      expect(Result.isFailure(result)).toBe(true)
      Result.mapError(result, (message) => {
        for (const t of tokens.filter((t) => !g.scopes.includes(t))) expect(message).toContain(t)
      })
    }
    Result.map(result, (n) => {
      for (const s of n.scopes) expect(g.scopes).toContain(s)
      for (const s of n.apiScopes) expect(g.apiScopes).toContain(s)
      if (n.offlineAccess) expect(g.offlineAccess).toBe(true)
    })
  })

  prop("a subset of the granted scopes is granted as asked", [granted.chain((g) => fc.tuple(fc.constant(g), fc.shuffledSubarray([...g.scopes], { minLength: 1 })))], ([[g, subset]]) => {
    expect(narrowScope(g, scopeString(subset))).toEqual(Result.succeed(expected(subset)))
  })

  it("examples", () => {
    const g: RequestedScope = { scopes: ["offline_access", "read:clients"], apiScopes: ["clients:read"], offlineAccess: true }
    expect(narrowScope(g, "read:clients")).toEqual(Result.succeed({ scopes: ["read:clients"], apiScopes: ["clients:read"], offlineAccess: false }))
    expect(narrowScope(g, "read:clients write:clients")).toEqual(Result.fail("scope exceeds the granted scope: write:clients"))
    expect(Result.isFailure(narrowScope(g, "openid"))).toBe(true)
    expect(Result.isFailure(narrowScope(g, ""))).toBe(true)
  })
})

describe("describeScope", () => {
  it("examples", () => {
    expect(describeScope("read:clients")).toBe("See your clients")
    expect(describeScope("write:clients")).toBe("Create, change and delete your clients")
    expect(describeScope("read:time-entries")).toBe("See your time entries")
    expect(describeScope("write:inquiries")).toBe("Send inquiries")
    expect(describeScope("offline_access")).toBe("Stay connected when you are not using the app")
    expect(describeScope("openid")).toBe("Know who you are")
  })

  prop("every resource scope is described in words", [fc.constantFrom(...ALL_SCOPES)], ([api]) => {
    const [r, a] = api.split(":")
    const words = r.replaceAll("-", " ")
    const text = describeScope(swap(api))
    if (api === "inquiries:write") expect(text).toBe("Send inquiries")
    else expect(text).toBe(a === "read" ? `See your ${words}` : `Create, change and delete your ${words}`)
    expect(text).not.toMatch(/[-:_]/)
  })

  it("every supported scope has its own description", () => {
    expect(new Set(OAUTH_SCOPES.map(describeScope)).size).toBe(OAUTH_SCOPES.length)
  })
})

describe("scopeString", () => {
  prop("joins with single spaces and parses back", [fc.subarray([...OAUTH_SCOPES], { minLength: 1 })], ([scopes]) => {
    expect(scopeString(scopes)).toBe(scopes.join(" "))
    expect(Result.map(parseScope(scopeString(scopes), OAUTH_SCOPES), (g) => g.scopes)).toEqual(Result.succeed(scopes))
  })
})
