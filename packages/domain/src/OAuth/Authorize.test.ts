import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import {
  AUTHORIZE_PARAMS,
  type AuthorizeClient,
  authorizeClientId,
  type AuthorizeRefusal,
  chooseOrganization,
  decideAuthorize,
  decideConsent
} from "./Authorize.js"
import { OAUTH_SCOPES, OFFLINE_ACCESS, OPENID } from "./Scopes.js"

// ---------------------------------------------------------------------------------------------------
// A request built from one choice per parameter; the expected answer written out from the contract's
// order of checks, independently of Authorize.ts.
// ---------------------------------------------------------------------------------------------------

const REGISTERED = ["https://app.example.com/callback", "http://127.0.0.1:8400/cb"]
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

type ClientChoice = "ok" | "missing" | "empty" | "repeated" | "unknown" | "disabled"
type UriChoice = "ok" | "missing" | "repeated" | "unregistered"
type Choice = "ok" | "missing" | "bad" | "repeated"
type StateChoice = "ok" | "missing" | "empty" | "repeated"

interface Case {
  readonly client: ClientChoice
  readonly redirectUri: UriChoice
  readonly responseType: Choice
  readonly state: StateChoice
  readonly method: Choice
  readonly challenge: Choice
  readonly scope: Choice
  readonly stateValue: string
  readonly uri: string
  readonly scopes: ReadonlyArray<string>
  readonly extra: ReadonlyArray<readonly [string, string]>
}

const choice = fc.constantFrom<Choice>("ok", "missing", "bad", "repeated")
/** Mostly good parameters, so that one broken rule at a time is common. */
const mostly = <A>(good: A, arb: fc.Arbitrary<A>) => fc.oneof({ arbitrary: fc.constant(good), weight: 3 }, { arbitrary: arb, weight: 1 })

const registered = fc.subarray([...OAUTH_SCOPES].filter((s) => s !== OPENID), { minLength: 1 })

const caseArb: fc.Arbitrary<Case> = fc.record({
  client: mostly<ClientChoice>("ok", fc.constantFrom("missing", "empty", "repeated", "unknown", "disabled")),
  redirectUri: mostly<UriChoice>("ok", fc.constantFrom("missing", "repeated", "unregistered")),
  responseType: mostly<Choice>("ok", choice),
  state: mostly<StateChoice>("ok", fc.constantFrom("missing", "empty", "repeated")),
  method: mostly<Choice>("ok", choice),
  challenge: mostly<Choice>("ok", choice),
  scope: mostly<Choice>("ok", choice),
  stateValue: fc.string({ minLength: 1, maxLength: 12 }),
  uri: fc.constantFrom(...REGISTERED),
  scopes: registered,
  extra: fc.array(fc.tuple(fc.constantFrom("csrf", "decision", "email", "foo"), fc.string({ maxLength: 5 })), { maxLength: 3 })
})

/** A good request with exactly one rule broken, one way: each rule is reached alone often. */
const GOOD = { client: "ok", redirectUri: "ok", responseType: "ok", state: "ok", method: "ok", challenge: "ok", scope: "ok" } as const
const oneBroken: fc.Arbitrary<Case> = fc.tuple(
  caseArb,
  fc.oneof(
    fc.constantFrom<ClientChoice>("missing", "empty", "repeated", "unknown", "disabled").map((client) => ({ client })),
    fc.constantFrom<UriChoice>("missing", "repeated", "unregistered").map((redirectUri) => ({ redirectUri })),
    fc.constantFrom<Choice>("missing", "bad", "repeated").map((responseType) => ({ responseType })),
    fc.constantFrom<StateChoice>("missing", "empty", "repeated").map((state) => ({ state })),
    fc.constantFrom<Choice>("missing", "bad", "repeated").map((method) => ({ method })),
    fc.constantFrom<Choice>("missing", "bad", "repeated").map((challenge) => ({ challenge })),
    fc.constantFrom<Choice>("missing", "bad", "repeated").map((scope) => ({ scope }))
  )
).map(([c, broken]) => ({ ...c, ...GOOD, ...broken }))

const appOf = (c: Case): AuthorizeClient & { readonly id: string } => ({
  id: "app-1",
  name: "Acme Books",
  redirectUris: REGISTERED,
  scopes: c.scopes,
  disabledAt: c.client === "disabled" ? new Date(0) : null
})

/** The request's pairs, in order. */
const pairsOf = (c: Case): Array<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  const put = (name: string, ch: string, good: string, bad: string, other: string) => {
    if (ch === "missing") return
    pairs.push([name, ch === "bad" || ch === "empty" ? bad : ch === "unregistered" ? bad : good])
    if (ch === "repeated") pairs.push([name, other])
  }
  const clientChoice = c.client === "unknown" || c.client === "disabled" ? "ok" : c.client
  put("client_id", clientChoice, "boc_1", "", "boc_2")
  put("redirect_uri", c.redirectUri, c.uri, `${c.uri}/other`, c.uri)
  put("response_type", c.responseType, "code", "token", "code")
  put("state", c.state, c.stateValue, "", "other-state")
  put("code_challenge_method", c.method, "S256", "plain", "S256")
  put("code_challenge", c.challenge, CHALLENGE, `${CHALLENGE}=`, CHALLENGE)
  put("scope", c.scope, c.scopes.join(" "), "read:nothing", c.scopes.join(" "))
  pairs.push(...c.extra)
  return pairs
}

type Expected =
  | { readonly kind: "page"; readonly title: string }
  | { readonly kind: "redirect"; readonly error: string; readonly description?: RegExp }
  | { readonly kind: "ok" }

const ORDER: ReadonlyArray<string> = AUTHORIZE_PARAMS

const expectedOf = (c: Case): Expected => {
  if (c.client === "missing" || c.client === "empty" || c.client === "repeated") return { kind: "page", title: "This app is not known" }
  if (c.client === "unknown" || c.client === "disabled") return { kind: "page", title: "This app is not known" }
  if (c.redirectUri !== "ok") return { kind: "page", title: "The app's address is not right" }
  // From here on, every error is a redirect. First a repeated parameter, in the list's order.
  const repeated = [["response_type", c.responseType], ["state", c.state], ["code_challenge_method", c.method], ["code_challenge", c.challenge], ["scope", c.scope]]
    .sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b))
    .find(([, ch]) => ch === "repeated")
  if (repeated !== undefined) return { kind: "redirect", error: "invalid_request", description: new RegExp(`^The parameter ${repeated[0]} is repeated$`) }
  if (c.responseType === "missing") return { kind: "redirect", error: "invalid_request", description: /response_type/ }
  if (c.responseType === "bad") return { kind: "redirect", error: "unsupported_response_type" }
  if (c.state !== "ok") return { kind: "redirect", error: "invalid_request", description: /^state is required$/ }
  if (c.method !== "ok") return { kind: "redirect", error: "invalid_request", description: /S256/ }
  if (c.challenge !== "ok") return { kind: "redirect", error: "invalid_request", description: /^code_challenge is required/ }
  if (c.scope !== "ok") return { kind: "redirect", error: "invalid_scope" }
  return { kind: "ok" }
}

const run = (c: Case) => {
  const params = new URLSearchParams(pairsOf(c).map(([n, v]): [string, string] => [n, v]))
  const app = c.client === "unknown" ? undefined : appOf(c)
  return decideAuthorize(params, app)
}

describe("decideAuthorize", () => {
  const answers = (c: Case) => {
    const expected = expectedOf(c)
    const result = run(c)
    if (expected.kind === "ok") {
      expect(Result.isSuccess(result), JSON.stringify(result)).toBe(true)
      return
    }
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isSuccess(result)) return
    const refusal: AuthorizeRefusal = result.failure
    if (expected.kind === "page") {
      expect(refusal).toMatchObject({ _tag: "Page", title: expected.title })
    } else {
      expect(refusal._tag).toBe("Redirect")
      if (refusal._tag !== "Redirect") return
      expect(refusal.error).toBe(expected.error)
      if (expected.description !== undefined) expect(refusal.description).toMatch(expected.description)
      // The redirect goes to the registered URI of the request, with the request's first state.
      expect(refusal.redirectUri).toBe(c.uri)
      expect(refusal.state).toBe(c.state === "missing" ? undefined : c.state === "empty" ? "" : c.stateValue)
    }
  }

  prop("answers a request with one rule broken with that rule's error", [oneBroken], ([c]) => answers(c))

  prop("answers any request as the contract's order of checks says (the first broken rule)", [caseArb], ([c]) => answers(c))

  prop("a client or redirect URI that cannot be trusted is never a redirect", [caseArb], ([c]) => {
    const result = run(c)
    if (c.client !== "ok" || c.redirectUri !== "ok") {
      expect(Result.isFailure(result) && result.failure._tag === "Page").toBe(true)
    }
  })

  prop("a good request carries its parameters (first values) and its scope", [caseArb.map((c) => ({ ...c, client: "ok" as const, redirectUri: "ok" as const, responseType: "ok" as const, state: "ok" as const, method: "ok" as const, challenge: "ok" as const, scope: "ok" as const }))], ([c]) => {
    const result = run(c)
    expect(Result.isSuccess(result)).toBe(true)
    if (Result.isFailure(result)) return
    const ok = result.success
    expect(ok.redirectUri).toBe(c.uri)
    expect(ok.state).toBe(c.stateValue)
    expect(ok.codeChallenge).toBe(CHALLENGE)
    expect(ok.scope.scopes).toEqual([...new Set(c.scopes)])
    expect(ok.scope.offlineAccess).toBe(c.scopes.includes(OFFLINE_ACCESS))
    expect(ok.hidden).toEqual({
      client_id: "boc_1",
      redirect_uri: c.uri,
      response_type: "code",
      scope: c.scopes.join(" "),
      state: c.stateValue,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256"
    })
  })

  it("authorizeClientId: the first step", () => {
    expect(authorizeClientId(new URLSearchParams("client_id=boc_1"))).toEqual(Result.succeed("boc_1"))
    for (const q of ["", "client_id=", "client_id=a&client_id=a"]) {
      expect(Result.isFailure(authorizeClientId(new URLSearchParams(q))), q).toBe(true)
    }
  })
})

describe("consent", () => {
  prop("deny redirects, approve goes on, anything else is a page", [fc.oneof(fc.constantFrom(undefined, "approve", "deny", "Approve", ""), fc.string())], ([d]) => {
    const result = decideConsent(d)
    if (d === "approve") expect(result).toEqual(Result.succeed("approve"))
    else if (d === "deny") expect(result).toEqual(Result.fail({ _tag: "Denied" }))
    else expect(Result.isFailure(result) && result.failure._tag === "Page").toBe(true)
  })

  const ids = fc.uniqueArray(fc.constantFrom("o1", "o2", "o3", "o4"), { maxLength: 4 })
  prop("the organization is one of the user's: the named one, or the only one when none is named", [ids, fc.option(fc.constantFrom("o1", "o2", "o5", ""), { nil: undefined })], ([orgIds, chosen]) => {
    const organizations = orgIds.map((id) => ({ id, name: id.toUpperCase() }))
    const result = chooseOrganization(chosen, organizations)
    const expected = chosen === undefined ? (organizations.length === 1 ? organizations[0] : undefined) : organizations.find((o) => o.id === chosen)
    if (expected === undefined) expect(Result.isFailure(result) && result.failure._tag === "Page").toBe(true)
    else expect(result).toEqual(Result.succeed(expected))
  })
})
