import {
  Authentication,
  CurrentPrincipal,
  decide,
  toApiScope,
  Forbidden,
  type Principal,
  RateLimited,
  rateLimitHeaders,
  recentFailures,
  RequiredScope,
  scopeRefusal,
  Unauthorized
} from "@bizops/domain"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { AccessRepo, type CountedPrincipal } from "../Access/AccessRepo.js"
import { AppConfig } from "../Config.js"
import { Issuer } from "../OAuth/Issuer.js"
import { OAuthRepo } from "../OAuth/OAuthRepo.js"
import { SigningKeys } from "../OAuth/SigningKeys.js"
import { clientAddress, retryAfterHeader } from "./ClientAddress.js"
import { CurrentRequestState } from "./RequestState.js"

/** The credential a request carries: `x-api-key`, else `Authorization: Bearer`. */
export const credentialOf = (headers: Readonly<Record<string, string | undefined>>): Option.Option<string> => {
  const apiKey = headers["x-api-key"]
  if (apiKey !== undefined && apiKey.length > 0) return Option.some(apiKey.trim())
  const authorization = headers["authorization"]
  if (authorization === undefined) return Option.none()
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? Option.none() : Option.some(match[1])
}

/** 401s allowed per client address per minute before that address gets 429 (no database work). */
export const FAILED_AUTH_LIMIT = 100
export const FAILED_AUTH_WINDOW_MS = 60_000

type AuthError = Unauthorized | Forbidden | RateLimited

const setHeaders = (headers: Record<string, string>) =>
  HttpEffect.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

const makeAuthenticator = Effect.gen(function*() {
  const access = yield* AccessRepo
  const oauth = yield* OAuthRepo
  const keys = yield* SigningKeys
  const urls = yield* Issuer
  const config = yield* AppConfig

  /**
   * An OAuth access token: our signature, issuer, audience and expiry, then a live grant (not revoked,
   * its app enabled), counted in the grant's window. Its scopes are the token's that the grant still has.
   */
  const authenticateToken = (token: string, now: number): Effect.Effect<Option.Option<CountedPrincipal>> =>
    Effect.gen(function*() {
      const claims = yield* keys.verify(token, { issuer: urls.issuer, audience: urls.audience })
      if (claims === undefined) return Option.none()
      const counted = yield* Effect.orDie(
        oauth.authenticateGrant(claims.grant_id, `oauth:${claims.client_id}:${claims.sub}:${claims.organizationId}`, now)
      )
      if (counted === undefined || counted.principal.organizationId !== claims.organizationId) return Option.none()
      const granted = new Set(counted.grantScopes)
      const scopes = new Set<string>()
      for (const scope of claims.scope.split(" ")) {
        const api = toApiScope(scope)
        if (api !== undefined && granted.has(scope)) scopes.add(api)
      }
      return Option.some({ principal: { ...counted.principal, scopes }, rateLimit: counted.rateLimit, window: counted.window })
    })
  const failures = new Map<string, ReadonlyArray<number>>()

  const failuresOf = (address: string, now: number) => {
    const recent = recentFailures(failures.get(address) ?? [], now, FAILED_AUTH_WINDOW_MS)
    if (recent.length === 0) failures.delete(address)
    else failures.set(address, recent)
    return recent
  }

  const unauthorized = (address: string, now: number, message: string) =>
    Effect.suspend(() => {
      if (failures.size > 100_000) failures.clear()
      failures.set(address, [...failuresOf(address, now), now])
      return Effect.andThen(
        setHeaders({ "www-authenticate": "Bearer realm=\"api\"" }),
        Effect.fail(new Unauthorized({ message }))
      )
    })

  const tooManyFailures = (address: string, now: number) =>
    Effect.suspend(() => {
      const recent = failuresOf(address, now)
      // This request would be the window's next failure; its window starts at the oldest recent one.
      const decision = decide({ start: recent[0] ?? now, count: recent.length + 1 }, FAILED_AUTH_LIMIT, now, FAILED_AUTH_WINDOW_MS)
      if (decision.allowed) return Effect.void
      return Effect.andThen(
        setHeaders(retryAfterHeader(decision)),
        Effect.fail(new RateLimited({ message: "Too many requests with invalid credentials from this address; retry later", details: { code: "rate_limited" } }))
      )
    })

  /**
   * The credential, checked and counted; the scope is checked by the middleware against the matched
   * route. The limit per address applies only to requests whose credential fails: a valid credential
   * is never refused by it (it counts against its own key's limit). A missing or malformed credential
   * is refused without database work.
   */
  const authenticateNow: Effect.Effect<Principal, AuthError, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const now = yield* Clock.currentTimeMillis
    const address = clientAddress(request, config.trustedProxies)
    const credential = credentialOf(request.headers)
    if (Option.isNone(credential)) {
      yield* tooManyFailures(address, now)
      return yield* unauthorized(address, now, "Missing credentials: send x-api-key: KEY or Authorization: Bearer KEY")
    }
    const isToken = looksLikeJwt(credential.value)
    const found = isToken ? yield* authenticateToken(credential.value, now) : yield* access.authenticateKey(credential.value, now)
    if (Option.isNone(found)) {
      yield* tooManyFailures(address, now)
      return yield* unauthorized(
        address,
        now,
        isToken ? "The access token is not valid, has expired or was revoked" : "The API key is not valid or has been revoked"
      )
    }
    const decision = decide(found.value.window, found.value.rateLimit, now)
    yield* setHeaders(rateLimitHeaders(decision))
    if (!decision.allowed) {
      return yield* Effect.fail(
        new RateLimited({
          message: `Rate limit of ${decision.limit} requests per hour exceeded; retry in ${decision.resetInSeconds} s`,
          details: { code: "rate_limited" }
        })
      )
    }
    return found.value.principal
  })

  /**
   * The current request's principal: authenticated and counted on first use, remembered after in the
   * request's state (the idempotency wrapper and the middleware both ask; a failing credential is
   * also asked once per security scheme).
   */
  const authenticate: Effect.Effect<Principal, AuthError, HttpServerRequest.HttpServerRequest> = Effect.flatMap(
    Effect.service(CurrentRequestState),
    (state) => {
      if (state === undefined) return authenticateNow
      if (state.authentication !== undefined) return state.authentication
      return Effect.flatMap(Effect.exit(authenticateNow), (exit) => {
        state.authentication = exit
        return exit
      })
    }
  )

  return { authenticate } as const
})

/**
 * Authentication and rate limit: the one mechanism every /api/v1 request goes through.
 * A key is looked up by its hash and counted in one statement; a request over the key's limit is 429.
 * Requests whose credential fails are limited per client address (100 a minute, then 429 instead of 401).
 * Needs AccessRepo, OAuthRepo, SigningKeys, Issuer and AppConfig (the server provides them).
 */
export class Authenticator extends Context.Service<Authenticator, Effect.Success<typeof makeAuthenticator>>()(
  "@bizops/server/Authenticator"
) {
  static readonly layer = Layer.effect(Authenticator, makeAuthenticator)
}

/** A JWT (three base64url parts): an OAuth access token; anything else is taken for an API key. */
export const looksLikeJwt = (credential: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential)

/**
 * The HttpApi middleware: both security schemes (x-api-key, bearer) use the one authenticator (which
 * reads the credential from the headers itself), then the scope that the endpoint it is handed declares
 * (deny by default: an endpoint that declares none is refused). The endpoint is the router's own match,
 * never the raw URL. When a scheme fails, the builder tries the next one: the outcome is remembered
 * per request, so a request is still authenticated and counted once.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const { authenticate } = yield* Authenticator
    const authorize = <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      endpoint: HttpApiEndpoint.Top
    ) =>
      Effect.flatMap(
        authenticate,
        (principal): Effect.Effect<HttpServerResponse.HttpServerResponse, E | Forbidden, Exclude<R, CurrentPrincipal>> => {
          const refusal = scopeRefusal(Context.getOrUndefined(endpoint.annotations, RequiredScope), principal.scopes)
          return refusal === undefined
            ? Effect.provideService(httpEffect, CurrentPrincipal, principal)
            : Effect.fail(new Forbidden({ message: refusal }))
        }
      )
    return Authentication.of({
      apiKey: (httpEffect, { endpoint }) => authorize(httpEffect, endpoint),
      bearer: (httpEffect, { endpoint }) => authorize(httpEffect, endpoint)
    })
  })
)
