import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { narrowScope, OAUTH_SCOPES, parseScope, scopeString } from "./Scopes.js"
import {
  checkRefreshScope,
  checkTokenParams,
  clientCredentials,
  decideClient,
  decideCodeExchange,
  decideGrantRequest,
  decideRefresh,
  decideTokenRate,
  sameSecret,
  type SpentCode,
  type SpentCredential,
  TOKEN_PARAMS,
  TOKEN_REQUESTS_PER_MINUTE,
  type TokenRefusal,
  tokenErrorStatus
} from "./Token.js"

const s256 = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url")
const form = (pairs: ReadonlyArray<readonly [string, string]>) => new URLSearchParams(pairs.map(([n, v]): [string, string] => [n, v]))
const refusalOf = <A>(result: Result.Result<A, TokenRefusal>): TokenRefusal | undefined =>
  Result.isFailure(result) ? result.failure : undefined
/** RFC 6749 5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/

describe("tokenErrorStatus", () => {
  it("401 for the client, 429 for the limit, 400 for the rest", () => {
    expect(tokenErrorStatus("invalid_client")).toBe(401)
    expect(tokenErrorStatus("temporarily_unavailable")).toBe(429)
    for (const e of ["invalid_request", "invalid_grant", "unsupported_grant_type", "invalid_scope"] as const) expect(tokenErrorStatus(e)).toBe(400)
  })
})

describe("checkTokenParams", () => {
  const name = fc.constantFrom(...TOKEN_PARAMS, "client_secret", "token", "other")
  prop("refused exactly when a parameter of the list is repeated, naming the first of the list", [fc.array(fc.tuple(name, fc.string({ maxLength: 4 })), { maxLength: 12 })], ([pairs]) => {
    const result = checkTokenParams(form(pairs))
    const repeated = TOKEN_PARAMS.find((n) => pairs.filter(([p]) => p === n).length > 1)
    if (repeated === undefined) expect(result).toEqual(Result.void)
    else expect(refusalOf(result)).toEqual({ error: "invalid_request", description: `The parameter ${repeated} is repeated` })
  })
})

describe("client authentication", () => {
  const text = fc.string({ minLength: 1, maxLength: 20 })
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+")

  prop("Basic credentials, form-encoded, are the client's id and secret", [text, fc.string({ maxLength: 20 }), fc.boolean()], ([id, secret, sameIdInBody]) => {
    const body = form(sameIdInBody ? [["client_id", id]] : [])
    expect(clientCredentials(`${enc(id)}:${enc(secret)}`, body)).toEqual(Result.succeed({ clientId: id, secret, basic: true }))
  })

  prop("Basic without a colon or with a broken escape is invalid_client with the Basic challenge", [fc.oneof(fc.string().filter((s) => !s.includes(":")), fc.constantFrom("a%:b", "a:%zz", "%E0%A4%A:x"))], ([basic]) => {
    expect(refusalOf(clientCredentials(basic, form([])))).toMatchObject({ error: "invalid_client", basicChallenge: true })
  })

  prop("Basic and a client_secret in the body, or another client_id in the body, are invalid_request", [text, text, text], ([id, secret, other]) => {
    const basic = `${enc(id)}:${enc(secret)}`
    expect(refusalOf(clientCredentials(basic, form([["client_secret", secret]])))).toEqual({ error: "invalid_request", description: "Use one client authentication method, not two" })
    const mismatch = clientCredentials(basic, form([["client_id", other]]))
    if (other === id) expect(Result.isSuccess(mismatch)).toBe(true)
    else expect(refusalOf(mismatch)?.error).toBe("invalid_request")
  })

  prop("the form's client_id and client_secret; missing either or an empty id is invalid_client, without a challenge", [fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined })], ([id, secret]) => {
    const pairs: Array<readonly [string, string]> = []
    if (id !== undefined) pairs.push(["client_id", id])
    if (secret !== undefined) pairs.push(["client_secret", secret])
    const result = clientCredentials(undefined, form(pairs))
    if (id === undefined || id === "" || secret === undefined) {
      const refusal = refusalOf(result)
      expect(refusal?.error).toBe("invalid_client")
      expect(refusal?.basicChallenge).toBeUndefined()
    } else {
      expect(result).toEqual(Result.succeed({ clientId: id, secret, basic: false }))
    }
  })

  prop("an empty Basic id is invalid_client with the challenge", [fc.string({ maxLength: 8 })], ([secret]) => {
    expect(refusalOf(clientCredentials(`:${enc(secret)}`, form([])))).toMatchObject({ error: "invalid_client", basicChallenge: true })
  })

  prop("a client is accepted exactly when found, enabled and its secret (once checked) is right", [fc.boolean(), fc.boolean(), fc.constantFrom(undefined, true, false), fc.boolean()], ([found, disabled, secretValid, basic]) => {
    const app = found ? { id: "a", disabledAt: disabled ? new Date(0) : null } : undefined
    const result = decideClient({ clientId: "c", secret: "s", basic }, app, secretValid)
    if (found && !disabled && secretValid !== false) {
      expect(result).toEqual(Result.succeed(app))
    } else {
      const refusal = refusalOf(result)
      expect(refusal?.error).toBe("invalid_client")
      expect(refusal?.description).toBe("The client is unknown, disabled, or its secret is not right")
      expect(refusal?.basicChallenge).toBe(basic ? true : undefined)
    }
  })
})

describe("decideTokenRate", () => {
  prop("allowed up to the limit; above it 429 with the whole seconds to the window's end, at least 1", [fc.oneof(fc.constantFrom(TOKEN_REQUESTS_PER_MINUTE, TOKEN_REQUESTS_PER_MINUTE + 1), fc.integer({ min: 1, max: 400 })), fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: -5_000, max: 61_000 })], ([count, now, left]) => {
    const result = decideTokenRate(count, now + left, now)
    if (count <= TOKEN_REQUESTS_PER_MINUTE) {
      expect(result).toEqual(Result.void)
    } else {
      const retry = Math.max(1, Math.ceil(left / 1000))
      expect(refusalOf(result)).toEqual({
        error: "temporarily_unavailable",
        description: `More than ${TOKEN_REQUESTS_PER_MINUTE} token requests a minute for this client; retry in ${retry} s`,
        retryAfter: retry
      })
    }
  })
})

describe("decideGrantRequest", () => {
  const grantType = fc.constantFrom(undefined, "authorization_code", "refresh_token", "password", "client_credentials", "", "AUTHORIZATION_CODE")
  const value = fc.option(fc.string({ maxLength: 6 }), { nil: undefined })
  prop("the grant and its parameters, or what is missing", [grantType, value, value, value, value, value], ([type, code, redirectUri, verifier, refreshToken, scope]) => {
    const pairs: Array<readonly [string, string]> = []
    const put = (n: string, v: string | undefined) => v === undefined ? undefined : pairs.push([n, v])
    put("grant_type", type)
    put("code", code)
    put("redirect_uri", redirectUri)
    put("code_verifier", verifier)
    put("refresh_token", refreshToken)
    put("scope", scope)
    const result = decideGrantRequest(form(pairs))
    if (type === "authorization_code") {
      if (code === undefined || redirectUri === undefined || verifier === undefined) {
        expect(refusalOf(result)).toEqual({ error: "invalid_request", description: "code, redirect_uri and code_verifier are required" })
      } else {
        expect(result).toEqual(Result.succeed({ _tag: "AuthorizationCode", code, redirectUri, verifier }))
      }
    } else if (type === "refresh_token") {
      if (refreshToken === undefined) expect(refusalOf(result)).toEqual({ error: "invalid_request", description: "refresh_token is required" })
      else expect(result).toEqual(Result.succeed({ _tag: "RefreshToken", refreshToken, scope }))
    } else {
      expect(refusalOf(result)?.error).toBe(type === undefined ? "invalid_request" : "unsupported_grant_type")
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// Spending a code or a refresh token: the expected answer, in the contract's order, written out here.
// ---------------------------------------------------------------------------------------------------

const NOW = new Date("2026-03-01T12:00:00Z")
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const GRANTED = ["read:clients", "write:clients", "offline_access"]

/** How a spent code or refresh token is generated: present, its client, first use, expiry, grant and app. */
interface SpentChoice {
  readonly present: boolean
  readonly otherApp: boolean
  readonly firstUse: boolean
  readonly expiresIn: number
  readonly revoked: boolean
  readonly appDisabled: boolean
}

/** Each way of being spoiled comes in about one case in six, so that every check is reached alone often. */
const spoiled = fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 })
const spent: fc.Arbitrary<SpentChoice> = fc.record({
  present: spoiled.map((b) => !b),
  otherApp: spoiled,
  firstUse: spoiled.map((b) => !b),
  expiresIn: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 600_000 }), weight: 5 },
    { arbitrary: fc.constantFrom(-1, 0, 1), weight: 1 }, // the instant of expiry: expired
    { arbitrary: fc.integer({ min: -120_000, max: 0 }), weight: 1 }
  ),
  revoked: spoiled,
  appDisabled: spoiled
})

const rowOf = (r: SpentChoice, scopes: ReadonlyArray<string>): SpentCredential => ({
  appId: r.otherApp ? "app-2" : "app-1",
  grantId: "grant-1",
  firstUse: r.firstUse,
  expiresAt: new Date(NOW.getTime() + r.expiresIn),
  revokedAt: r.revoked ? new Date(0) : null,
  appDisabledAt: r.appDisabled ? new Date(0) : null,
  scopes
})

/** The common checks: the error description expected, or undefined when the row is good. */
const spentExpectation = (r: SpentChoice, name: string) => {
  if (!r.present || r.otherApp) return { description: `The ${name} is not valid` }
  if (!r.firstUse) return { description: /already used/, revoke: true }
  if (r.expiresIn <= 0) return { description: `The ${name} has expired` }
  if (r.revoked || r.appDisabled) return { description: "The authorization was revoked" }
  return undefined
}

describe("decideCodeExchange", () => {
  prop(
    "a code is good once, for its client, before it expires, with its grant live, its redirect URI and its verifier",
    [spent, fc.boolean(), fc.constantFrom(VERIFIER, "short-verifier", `${VERIFIER}\n`), fc.boolean()],
    ([r, sameUri, registered, sameVerifier]) => {
      // The code's challenge is the S256 of `registered`, which may not be a verifier at all.
      const row: SpentCode | undefined = r.present
        ? { ...rowOf(r, GRANTED), redirectUri: "https://app.example.com/cb", codeChallenge: s256(registered) }
        : undefined
      const verifier = sameVerifier ? registered : VERIFIER.replace("d", "e")
      const request = { redirectUri: sameUri ? "https://app.example.com/cb" : "https://app.example.com/cb/", verifier }
      const result = decideCodeExchange(row, "app-1", request, NOW, s256)
      const verifierGood = sameVerifier && registered === VERIFIER
      const common = spentExpectation(r, "code")
      const expected = common ?? (
        !sameUri
          ? { description: "redirect_uri is not the one of the authorization request" }
          : !verifierGood
          ? { description: "The code_verifier does not match the code_challenge" }
          : undefined
      )
      if (expected === undefined) {
        expect(result).toEqual(Result.succeed(row))
        return
      }
      const refusal = refusalOf(result)
      expect(refusal?.error).toBe("invalid_grant")
      expect(refusal?.description).toMatch(expected.description)
      expect(refusal?.description).toMatch(ERROR_DESCRIPTION)
      expect(refusal?.revokeGrant).toBe("revoke" in expected ? "code_reused" : undefined)
    }
  )
})

describe("refresh", () => {
  const scopes = fc.subarray(GRANTED, { minLength: 1 })
  const requested = fc.option(
    fc.oneof(fc.subarray([...OAUTH_SCOPES], { minLength: 1 }).map((s) => s.join(" ")), fc.constantFrom("", "  ", "read:nothing", "read:clients\tx")),
    { nil: undefined }
  )

  prop("a refused scope is refused before the token is spent, only for the holder's own client", [fc.option(scopes, { nil: undefined }), fc.boolean(), requested], ([held, own, scope]) => {
    const holder = held === undefined ? undefined : { appId: own ? "app-1" : "app-2", scopes: held }
    const result = checkRefreshScope(holder, "app-1", scope)
    const refused = holder !== undefined && own && scope !== undefined &&
      Result.isFailure(Result.flatMap(parseScope(scopeString(holder.scopes), holder.scopes), (g) => narrowScope(g, scope)))
    expect(refusalOf(result)?.error).toBe(refused ? "invalid_scope" : undefined)
  })

  prop("a refresh token is good once (rotation), for its client, before it expires, and narrows within the grant", [spent, scopes, requested], ([r, granted, scope]) => {
    const row = r.present ? rowOf(r, granted) : undefined
    const result = decideRefresh(row, "app-1", scope, NOW)
    const common = spentExpectation(r, "refresh token")
    if (common !== undefined) {
      const refusal = refusalOf(result)
      expect(refusal?.error).toBe("invalid_grant")
      expect(refusal?.description).toMatch(common.description)
      expect(refusal?.revokeGrant).toBe("revoke" in common ? "refresh_token_reused" : undefined)
      return
    }
    const narrowed = Result.flatMap(parseScope(scopeString(granted), granted), (g) => narrowScope(g, scope))
    if (Result.isFailure(narrowed)) {
      expect(refusalOf(result)).toEqual({ error: "invalid_scope", description: narrowed.failure })
    } else {
      expect(result).toEqual(Result.succeed({ row, scope: narrowed.success }))
      if (Result.isSuccess(result)) {
        for (const s of result.success.scope.scopes) expect(granted).toContain(s)
      }
    }
  })

  it("a grant whose scope is no longer valid is invalid_grant", () => {
    const row: SpentCredential = { appId: "app-1", grantId: "g", firstUse: true, expiresAt: new Date(NOW.getTime() + 1000), revokedAt: null, appDisabledAt: null, scopes: ["read:gone"] }
    expect(refusalOf(decideRefresh(row, "app-1", undefined, NOW))).toEqual({ error: "invalid_grant", description: "The authorization's scope is no longer valid" })
  })
})

describe("sameSecret", () => {
  prop("is string equality", [fc.string({ maxLength: 50 }), fc.string({ maxLength: 50 }), fc.boolean()], ([a, b, same]) => {
    const other = same ? a : b
    expect(sameSecret(a, other)).toBe(a === other)
  })

  prop("one character changed anywhere makes two strings differ", [fc.string({ minLength: 1, maxLength: 50 }), fc.nat(), fc.integer({ min: 1, max: 0xffff })], ([a, at, delta]) => {
    const i = at % a.length
    const changed = a.slice(0, i) + String.fromCharCode((a.charCodeAt(i) + delta) % 0x10000) + a.slice(i + 1)
    expect(sameSecret(a, changed)).toBe(false)
    expect(sameSecret(a, a.slice(0, i) + a.charAt(i) + a.slice(i + 1))).toBe(true)
  })
})
