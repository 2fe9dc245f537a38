/**
 * The token endpoint (RFC 6749 3.2, 4.1.3, 5.2, 6; RFC 7636 4.6; RFC 9700 4.14), as decisions. The
 * server reads the form, looks rows up and spends codes and tokens; these say what is answered:
 *
 * - a parameter given twice is invalid_request;
 * - the client authenticates with one method (client_secret_basic or client_secret_post), else
 *   invalid_request (two methods, ids that differ) or invalid_client (401, a Basic challenge when Basic
 *   was used): unknown, disabled, or a wrong secret all answer the same;
 * - more than TOKEN_REQUESTS_PER_MINUTE requests of a client in its minute: temporarily_unavailable (429,
 *   Retry-After);
 * - grant_type authorization_code or refresh_token, with their parameters;
 * - a code or refresh token is good once: its second use revokes the grant (reuse detection); then
 *   expiry, a revoked grant or disabled app, the redirect URI of the request and the PKCE verifier (a
 *   code), the scope narrowed within the grant's (a refresh token).
 */
import { Result } from "effect"
import { decide } from "../Common/RateLimit.js"
import { firstOf, type Params } from "./Authorize.js"
import { isCodeVerifier } from "./Pkce.js"
import { narrowScope, parseScope, type RequestedScope, scopeString } from "./Scopes.js"

/** Token endpoint requests per client per minute (contract). */
export const TOKEN_REQUESTS_PER_MINUTE = 120
export const TOKEN_WINDOW_MS = 60_000

/** The error codes of the token and revocation endpoints (RFC 6749 5.2). */
export type TokenErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "temporarily_unavailable"

/** Why a grant is revoked by a refusal: a code or refresh token presented a second time. */
export type ReuseRevocation = "code_reused" | "refresh_token_reused"

/** A refused token request: the error to answer, and what else to do. */
export interface TokenRefusal {
  readonly error: TokenErrorCode
  readonly description: string
  /** invalid_client to a client that used Basic: the answer carries `WWW-Authenticate: Basic`. */
  readonly basicChallenge?: true
  /** temporarily_unavailable: the Retry-After, in whole seconds. */
  readonly retryAfter?: number
  /** Revoke the grant (and every token of it) before answering. */
  readonly revokeGrant?: ReuseRevocation
}

/** The HTTP status of a token error: 401 for the client's authentication, 429 for the limit, else 400. */
export const tokenErrorStatus = (error: TokenErrorCode): 400 | 401 | 429 =>
  error === "invalid_client" ? 401 : error === "temporarily_unavailable" ? 429 : 400

const refuse = (error: TokenErrorCode, description: string): Result.Result<never, TokenRefusal> =>
  Result.fail({ error, description })

/** The parameters of a token request that must not be repeated. */
export const TOKEN_PARAMS = ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "scope"] as const

/** A token request's form: no parameter of TOKEN_PARAMS given twice. */
export const checkTokenParams = (form: Params): Result.Result<void, TokenRefusal> => {
  for (const name of TOKEN_PARAMS) {
    if (form.getAll(name).length > 1) return refuse("invalid_request", `The parameter ${name} is repeated`)
  }
  return Result.void
}

/** The credentials a client presents. */
export interface ClientCredentials {
  readonly clientId: string
  readonly secret: string
  /** Presented with HTTP Basic (client_secret_basic): a refusal carries the Basic challenge. */
  readonly basic: boolean
}

const BAD_BASIC = "The Authorization header is not valid Basic credentials"

/** `application/x-www-form-urlencoded` decoding of a Basic credential part (RFC 6749 2.3.1); undefined if malformed. */
const formDecode = (part: string): string | undefined => {
  try {
    return decodeURIComponent(part.replace(/\+/g, " "))
  } catch {
    return undefined
  }
}

/**
 * The client's credentials: `basic` is the decoded text of an `Authorization: Basic` header (undefined
 * when the request has none), else `client_id` and `client_secret` of the form. One method only.
 */
export const clientCredentials = (basic: string | undefined, form: Params): Result.Result<ClientCredentials, TokenRefusal> => {
  let clientId: string | undefined
  let secret: string | undefined
  if (basic !== undefined) {
    const colon = basic.indexOf(":")
    if (colon === -1) return Result.fail({ error: "invalid_client", description: BAD_BASIC, basicChallenge: true })
    clientId = formDecode(basic.slice(0, colon))
    secret = formDecode(basic.slice(colon + 1))
    if (clientId === undefined || secret === undefined) {
      return Result.fail({ error: "invalid_client", description: BAD_BASIC, basicChallenge: true })
    }
    if (form.getAll("client_secret").length > 0) return refuse("invalid_request", "Use one client authentication method, not two")
    const bodyId = firstOf(form, "client_id")
    if (bodyId !== undefined && bodyId !== clientId) return refuse("invalid_request", "client_id does not match the Authorization header")
  } else {
    clientId = firstOf(form, "client_id")
    secret = firstOf(form, "client_secret")
  }
  if (clientId === undefined || secret === undefined || clientId === "") {
    return Result.fail({
      error: "invalid_client",
      description: "Client authentication is required (client_secret_basic or client_secret_post)",
      ...(basic === undefined ? {} : { basicChallenge: true })
    })
  }
  return Result.succeed({ clientId, secret, basic: basic !== undefined })
}

/**
 * The client found under the credentials' id, then whether its secret was right: an unknown client, a
 * disabled one, and a wrong secret answer alike. `secretValid` is undefined before the secret is checked
 * (a secret is checked only for an enabled client): the client to check it for, or the refusal.
 */
export const decideClient = <A extends { readonly disabledAt: Date | null }>(
  credentials: ClientCredentials,
  app: A | undefined,
  secretValid?: boolean
): Result.Result<A, TokenRefusal> =>
  app === undefined || app.disabledAt !== null || secretValid === false
    ? Result.fail({
      error: "invalid_client",
      description: "The client is unknown, disabled, or its secret is not right",
      ...(credentials.basic ? { basicChallenge: true } : {})
    })
    : Result.succeed(app)

/**
 * The client's limit: `count` token requests in its current minute (this one included), the window
 * ending at `resetsAt` (ms). Over TOKEN_REQUESTS_PER_MINUTE: temporarily_unavailable with Retry-After.
 */
export const decideTokenRate = (count: number, resetsAt: number, now: number): Result.Result<void, TokenRefusal> => {
  const decision = decide({ start: resetsAt - TOKEN_WINDOW_MS, count }, TOKEN_REQUESTS_PER_MINUTE, now, TOKEN_WINDOW_MS)
  return decision.allowed ? Result.void : Result.fail({
    error: "temporarily_unavailable",
    description: `More than ${TOKEN_REQUESTS_PER_MINUTE} token requests a minute for this client; retry in ${decision.resetInSeconds} s`,
    retryAfter: decision.resetInSeconds
  })
}

/** What a token request asks for. */
export type GrantRequest =
  | { readonly _tag: "AuthorizationCode"; readonly code: string; readonly redirectUri: string; readonly verifier: string }
  | { readonly _tag: "RefreshToken"; readonly refreshToken: string; readonly scope: string | undefined }

/** The grant of a token request: authorization_code or refresh_token, with their parameters. */
export const decideGrantRequest = (form: Params): Result.Result<GrantRequest, TokenRefusal> => {
  const grantType = firstOf(form, "grant_type")
  if (grantType === "authorization_code") {
    const code = firstOf(form, "code")
    const redirectUri = firstOf(form, "redirect_uri")
    const verifier = firstOf(form, "code_verifier")
    return code === undefined || redirectUri === undefined || verifier === undefined
      ? refuse("invalid_request", "code, redirect_uri and code_verifier are required")
      : Result.succeed({ _tag: "AuthorizationCode", code, redirectUri, verifier })
  }
  if (grantType === "refresh_token") {
    const refreshToken = firstOf(form, "refresh_token")
    return refreshToken === undefined
      ? refuse("invalid_request", "refresh_token is required")
      : Result.succeed({ _tag: "RefreshToken", refreshToken, scope: firstOf(form, "scope") })
  }
  return grantType === undefined
    ? refuse("invalid_request", "grant_type is required")
    : refuse("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

/** A code or refresh token as spent: its grant, and whether this request was its first use. */
export interface SpentCredential {
  readonly appId: string
  readonly grantId: string
  readonly firstUse: boolean
  readonly expiresAt: Date
  readonly revokedAt: Date | null
  readonly appDisabledAt: Date | null
  readonly scopes: ReadonlyArray<string>
}

export interface SpentCode extends SpentCredential {
  readonly redirectUri: string
  readonly codeChallenge: string
}

/** Equality of two strings in time that depends on their lengths only. */
export const sameSecret = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** The checks of a spent credential common to codes and refresh tokens. */
const checkSpent = <R extends SpentCredential>(
  row: R | undefined,
  appId: string,
  now: Date,
  kind: { readonly name: string; readonly reused: string; readonly revocation: ReuseRevocation }
): Result.Result<R, TokenRefusal> => {
  if (row === undefined || row.appId !== appId) return refuse("invalid_grant", `The ${kind.name} is not valid`)
  if (!row.firstUse) return Result.fail({ error: "invalid_grant", description: kind.reused, revokeGrant: kind.revocation })
  if (row.expiresAt.getTime() <= now.getTime()) return refuse("invalid_grant", `The ${kind.name} has expired`)
  if (row.revokedAt !== null || row.appDisabledAt !== null) return refuse("invalid_grant", "The authorization was revoked")
  return Result.succeed(row)
}

/**
 * A code spent by client `appId` at `now` (undefined: no such code for this client), against the
 * request's redirect URI and verifier; `challengeOf` is the S256 of a verifier. Success: issue the
 * tokens of the code's grant with its scopes.
 */
export const decideCodeExchange = <R extends SpentCode>(
  row: R | undefined,
  appId: string,
  request: { readonly redirectUri: string; readonly verifier: string },
  now: Date,
  challengeOf: (verifier: string) => string
): Result.Result<R, TokenRefusal> => {
  const spent = checkSpent(row, appId, now, {
    name: "code",
    reused: "The code was already used; the tokens issued from it are revoked",
    revocation: "code_reused"
  })
  if (Result.isFailure(spent)) return spent
  if (request.redirectUri !== spent.success.redirectUri) {
    return refuse("invalid_grant", "redirect_uri is not the one of the authorization request")
  }
  if (!isCodeVerifier(request.verifier) || !sameSecret(challengeOf(request.verifier), spent.success.codeChallenge)) {
    return refuse("invalid_grant", "The code_verifier does not match the code_challenge")
  }
  return spent
}

/**
 * Before a refresh token is spent: a `requested` scope the grant (of the token's holder, undefined if
 * none) does not have is refused, so that a refused request leaves the client's token good (RFC 6749 6).
 */
export const checkRefreshScope = (
  holder: { readonly appId: string; readonly scopes: ReadonlyArray<string> } | undefined,
  appId: string,
  requested: string | undefined
): Result.Result<void, TokenRefusal> => {
  if (holder === undefined || holder.appId !== appId || requested === undefined) return Result.void
  const held = parseScope(scopeString(holder.scopes), holder.scopes)
  const narrowed = Result.flatMap(held, (granted) => narrowScope(granted, requested))
  return Result.isSuccess(held) && Result.isFailure(narrowed) ? refuse("invalid_scope", narrowed.failure) : Result.void
}

/**
 * A refresh token spent by client `appId` at `now` (rotation: it is good once; a second use revokes
 * the grant). Success: the row and the scope of the new tokens, the `requested` narrowing of the grant's.
 */
export const decideRefresh = <R extends SpentCredential>(
  row: R | undefined,
  appId: string,
  requested: string | undefined,
  now: Date
): Result.Result<{ readonly row: R; readonly scope: RequestedScope }, TokenRefusal> => {
  const spent = checkSpent(row, appId, now, {
    name: "refresh token",
    reused: "The refresh token was already used; the authorization is revoked",
    revocation: "refresh_token_reused"
  })
  if (Result.isFailure(spent)) return Result.fail(spent.failure)
  const granted = parseScope(scopeString(spent.success.scopes), spent.success.scopes)
  if (Result.isFailure(granted)) return refuse("invalid_grant", "The authorization's scope is no longer valid")
  const scope = narrowScope(granted.success, requested)
  return Result.isFailure(scope) ? refuse("invalid_scope", scope.failure) : Result.succeed({ row: spent.success, scope: scope.success })
}
