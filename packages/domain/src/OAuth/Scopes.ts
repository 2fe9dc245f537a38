import { Result } from "effect"
import { ALL_SCOPES, isKnownScope } from "../Common/Auth.js"

/**
 * OAuth scopes (the contract, "Credentials and scopes"): `read:<resource>` grants the API scope
 * `<resource>:read`, `write:<resource>` grants `<resource>:write`; `offline_access` is required for a
 * refresh token; `openid` is accepted (it grants no API scope).
 */

export const OFFLINE_ACCESS = "offline_access"
export const OPENID = "openid"

const OAUTH_FORM = /^(read|write):(.+)$/
const API_FORM = /^(.+):(read|write)$/

/** The API scope an OAuth scope grants: "read:clients" → "clients:read"; undefined if it grants none. */
export const toApiScope = (oauthScope: string): string | undefined => {
  const match = OAUTH_FORM.exec(oauthScope)
  if (match === null) return undefined
  const apiScope = `${match[2]}:${match[1]}`
  return isKnownScope(apiScope) ? apiScope : undefined
}

/**
 * The OAuth scope that grants an API scope: "clients:read" → "read:clients". The inverse of
 * `toApiScope` for the known API scopes; anything not of the form `<resource>:<read|write>` is returned
 * unchanged.
 */
export const toOAuthScope = (apiScope: string): string => {
  const match = API_FORM.exec(apiScope)
  return match === null ? apiScope : `${match[2]}:${match[1]}`
}

/** Every supported OAuth scope (the discovery document's `scopes_supported`). */
export const OAUTH_SCOPES: ReadonlyArray<string> = [OPENID, OFFLINE_ACCESS, ...ALL_SCOPES.map(toOAuthScope)]

const supported: ReadonlySet<string> = new Set(OAUTH_SCOPES)

export const isOAuthScope = (s: string): boolean => supported.has(s)

/** A scope parameter, checked. */
export interface RequestedScope {
  /** The OAuth scopes, without duplicates, in the order of the request. */
  readonly scopes: ReadonlyArray<string>
  /** The API scopes they grant, in the same order. */
  readonly apiScopes: ReadonlyArray<string>
  readonly offlineAccess: boolean
}

/** RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

const fromScopes = (tokens: ReadonlyArray<string>): RequestedScope => {
  const scopes = Array.from(new Set(tokens))
  const apiScopes: Array<string> = []
  for (const s of scopes) {
    const api = toApiScope(s)
    if (api !== undefined) apiScopes.push(api)
  }
  return { scopes, apiScopes, offlineAccess: scopes.includes(OFFLINE_ACCESS) }
}

/**
 * The tokens of a scope parameter. RFC 6749 3.3 separates tokens by single spaces; we are lenient about
 * spaces only: leading, trailing and repeated U+0020 are ignored (they cannot change which tokens are
 * meant, and a form-encoded `+` or a careless join easily doubles one). Any other whitespace (tab, line
 * break) or a character outside the scope-token set refuses the whole parameter. The messages never
 * repeat such characters, so that they stay valid as an `error_description` (RFC 6749 5.2).
 */
const tokensOf = (scope: string | undefined): Result.Result<ReadonlyArray<string>, string> => {
  if (scope === undefined) return Result.fail("scope is required")
  const tokens = scope.split(" ").filter((t) => t.length > 0)
  if (tokens.length === 0) return Result.fail("scope is required")
  if (!tokens.every((t) => SCOPE_TOKEN.test(t))) {
    return Result.fail("scope must be scope tokens separated by spaces (RFC 6749 section 3.3)")
  }
  return Result.succeed(tokens)
}

const check = (
  tokens: ReadonlyArray<string>,
  isAllowed: (token: string) => boolean,
  notAllowed: string
): Result.Result<RequestedScope, string> => {
  const unique = Array.from(new Set(tokens))
  const unknown = unique.filter((t) => !isOAuthScope(t))
  const refused = unique.filter((t) => isOAuthScope(t) && !isAllowed(t))
  const problems = [
    ...(unknown.length > 0 ? [`unknown scope: ${unknown.join(", ")}`] : []),
    ...(refused.length > 0 ? [`${notAllowed}: ${refused.join(", ")}`] : [])
  ]
  return problems.length > 0 ? Result.fail(problems.join("; ")) : Result.succeed(fromScopes(tokens))
}

/**
 * The `scope` parameter of an authorization request, checked against the scopes the app registered
 * (`allowed`, OAuth scope names such as "read:clients" and "offline_access"). Every token must be a
 * supported OAuth scope and registered, except `openid`, which is always allowed. A missing or empty
 * scope is refused (RFC 6749 3.3 lets us refuse rather than assume a default). The Left is the
 * `error_description` of an `invalid_scope` error; it names the offending tokens.
 */
export const parseScope = (scope: string | undefined, allowed: ReadonlyArray<string>): Result.Result<RequestedScope, string> =>
  Result.flatMap(tokensOf(scope), (tokens) =>
    check(tokens, (t) => t === OPENID || allowed.includes(t), "scope not registered for this app")
  )

/**
 * The optional `scope` of a refresh request (RFC 6749 6): undefined keeps the granted scope; otherwise
 * every token must have been granted (`openid` included: narrowing never widens). The Left is the
 * `error_description` of an `invalid_scope` error. RFC 6749 6 applies the narrowed scope to the new
 * access token; a new refresh token keeps the scope of the refresh token that was presented.
 */
export const narrowScope = (granted: RequestedScope, requested: string | undefined): Result.Result<RequestedScope, string> =>
  requested === undefined
    ? Result.succeed(granted)
    : Result.flatMap(tokensOf(requested), (tokens) =>
        check(tokens, (t) => granted.scopes.includes(t), "scope exceeds the granted scope")
      )

/** Plain words for a consent page. */
export const describeScope = (oauthScope: string): string => {
  if (oauthScope === OPENID) return "Know who you are"
  if (oauthScope === OFFLINE_ACCESS) return "Stay connected when you are not using the app"
  if (oauthScope === "write:inquiries") return "Send inquiries"
  const api = toApiScope(oauthScope)
  const match = api === undefined ? null : API_FORM.exec(api)
  if (match === null) return oauthScope
  const words = match[1].replaceAll("-", " ")
  return match[2] === "read" ? `See your ${words}` : `Create, change and delete your ${words}`
}

/** The scope parameter or response field: the scopes joined by single spaces. */
export const scopeString = (scopes: ReadonlyArray<string>): string => scopes.join(" ")
