import {
  authorizeClientId,
  type AuthorizeRefusal,
  type AuthorizeRequest,
  checkRefreshScope,
  checkTokenParams,
  chooseOrganization,
  clientCredentials,
  decideAuthorize,
  decideClient,
  decideCodeExchange,
  decideConsent,
  decideGrantRequest,
  decideRefresh,
  decideSignInLimit,
  decideTokenRate,
  describeScope,
  OAUTH_SCOPES,
  OFFLINE_ACCESS,
  scopeString,
  SIGN_IN_WINDOW_SECONDS,
  tokenErrorStatus,
  type TokenRefusal
} from "@bizops/domain"
import { Clock, Effect, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { Issuer } from "./Issuer.js"
import { type AppRow, type GrantRow, OAuthRepo } from "./OAuthRepo.js"
import { consentPage, errorPage, pageHeaders, signInPage } from "./Pages.js"
import { randomToken, s256 } from "./Secrets.js"
import { clientAddress, retryAfterHeader } from "../Http/ClientAddress.js"
import { ACCESS_TOKEN_SECONDS, SigningKeys } from "./SigningKeys.js"

export const AUTHORIZE_PATH = "/api/auth/oauth2/authorize"
export const TOKEN_PATH = "/api/auth/oauth2/token"
export const REVOKE_PATH = "/api/auth/oauth2/revoke"
export const SIGN_IN_PATH = "/api/auth/sign-in"
export const JWKS_PATH = "/api/auth/jwks"
export const METADATA_PATH = "/.well-known/oauth-authorization-server"

/** The routes of this file, for the route table (405 and Allow) of the error envelope. */
export const OAUTH_ROUTES = [
  { method: "GET", path: AUTHORIZE_PATH },
  { method: "POST", path: AUTHORIZE_PATH },
  { method: "POST", path: SIGN_IN_PATH },
  { method: "POST", path: TOKEN_PATH },
  { method: "POST", path: REVOKE_PATH },
  { method: "GET", path: JWKS_PATH },
  { method: "GET", path: METADATA_PATH }
] as const

/** Failed sign-ins allowed per email address per 15 minutes (contract), and per client address. */
export { SIGN_IN_FAILURES_PER_ADDRESS, SIGN_IN_FAILURES_PER_EMAIL } from "@bizops/domain"
/** Token endpoint requests per client per minute (contract). */
export { TOKEN_REQUESTS_PER_MINUTE } from "@bizops/domain"

const SESSION_COOKIE = "bo_session"
const CSRF_COOKIE = "bo_csrf"

/** A page, with the headers of Pages.ts (a CSP without script, no framing, no caching, no referrer). */
const page = (html: string, status = 200) => {
  const { "content-type": contentType, ...headers } = pageHeaders
  return HttpServerResponse.text(html, { status, contentType, headers })
}

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }

/** An error of the token or revocation endpoint (RFC 6749 5.2): JSON `{error, error_description}`. */
const tokenError = ({ basicChallenge, description, error, retryAfter }: TokenRefusal) =>
  HttpServerResponse.jsonUnsafe({ error, error_description: description }, {
    status: tokenErrorStatus(error),
    headers: {
      ...NO_STORE,
      ...(basicChallenge === true ? { "www-authenticate": "Basic realm=\"oauth\"" } : {}),
      ...(retryAfter === undefined ? {} : retryAfterHeader(retryAfter))
    }
  })

const NOT_A_FORM: TokenRefusal = { error: "invalid_request", description: "The body must be application/x-www-form-urlencoded" }

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** An authorization request that passed the checks of the domain (`decideAuthorize`). */
type Authorized = AuthorizeRequest<AppRow>

/** Parses `application/x-www-form-urlencoded` text; repeated names are kept (to refuse them). */
const formOf = (text: string): URLSearchParams => new URLSearchParams(text)

/**
 * The OAuth 2.0 authorization server: authorize (sign-in and consent pages), token, revocation,
 * metadata (RFC 8414) and the key set. Its answers are RFC 6749's, not the /api/v1 envelope.
 */
export const OAuthRoutes = (options: { readonly trustedProxies: number }) =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      const repo = yield* OAuthRepo
      const keys = yield* SigningKeys
      const urls = yield* Issuer
      yield* keys.ensureCurrent // the first start makes the first signing key
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

      const redirectWith = (redirectUri: string, params: Record<string, string | undefined>) => {
        const url = new URL(redirectUri)
        for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
        url.searchParams.set("iss", urls.issuer)
        return url.toString()
      }

      /** The authorization request's checks (the domain's), the client looked up between its two steps. */
      const checkAuthorize = (params: URLSearchParams) =>
        Effect.gen(function*() {
          const clientId = authorizeClientId(params)
          if (Result.isFailure(clientId)) return Result.fail(clientId.failure)
          return decideAuthorize(params, yield* repo.appByClientId(clientId.success))
        })

      /** Answers a check that failed: the 400 page, or the redirect with the error. */
      const refuse = (refusal: AuthorizeRefusal) =>
        refusal._tag === "Page"
          ? page(errorPage({ title: refusal.title, message: refusal.message }), 400)
          : HttpServerResponse.redirect(
            redirectWith(refusal.redirectUri, { error: refusal.error, error_description: refusal.description, state: refusal.state }),
            { status: 303, headers: { "cache-control": "no-store" } }
          )

      const signInForm = (check: Authorized, extra: { readonly email?: string; readonly error?: string }, status = 200) => {
        const csrf = randomToken()
        return page(signInPage({
          action: SIGN_IN_PATH,
          csrf,
          hidden: check.hidden,
          app: { name: check.app.name, logoUrl: check.app.logoUrl },
          ...(extra.email === undefined ? {} : { email: extra.email }),
          ...(extra.error === undefined ? {} : { error: extra.error })
        }), status).pipe(HttpServerResponse.setCookieUnsafe(CSRF_COOKIE, csrf, {
          httpOnly: true,
          sameSite: "lax",
          secure: urls.secure,
          path: "/api/auth"
        }))
      }

      const sessionFrom = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.gen(function*() {
          const token = request.cookies[SESSION_COOKIE]
          if (token === undefined || token === "") return undefined
          return yield* repo.sessionOf(token, yield* now)
        })

      const consentForm = (
        check: Authorized,
        session: { readonly userId: string; readonly email: string; readonly csrf: string }
      ) =>
        Effect.gen(function*() {
          const organizations = yield* repo.organizationsOf(session.userId)
          if (organizations.length === 0) {
            return page(errorPage({ title: "No organization", message: "Your account does not belong to any organization yet, so no app can act for you." }), 403)
          }
          return page(consentPage({
            action: AUTHORIZE_PATH,
            csrf: session.csrf,
            hidden: check.hidden,
            app: { name: check.app.name, description: check.app.description, homepageUrl: check.app.homepageUrl, logoUrl: check.app.logoUrl },
            user: { email: session.email },
            scopes: check.scope.scopes.map((scope) => ({ scope, description: describeScope(scope) })),
            organizations
          }))
        })

      // GET /api/auth/oauth2/authorize: check the request, then sign in or consent.
      yield* router.add("GET", AUTHORIZE_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = new URL(request.url, "http://localhost").searchParams
        const checked = yield* checkAuthorize(params)
        if (Result.isFailure(checked)) return refuse(checked.failure)
        const check = checked.success
        const session = yield* sessionFrom(request)
        return session === undefined ? signInForm(check, {}) : yield* consentForm(check, session)
      }).pipe(Effect.orDie))

      // POST /api/auth/sign-in: the sign-in form (CSRF double-submit cookie), limited per email and address.
      yield* router.add("POST", SIGN_IN_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = formOf(yield* request.text)
        const checked = yield* checkAuthorize(form)
        if (Result.isFailure(checked)) return refuse(checked.failure)
        const check = checked.success
        const cookie = request.cookies[CSRF_COOKIE]
        const csrf = form.get("csrf") ?? ""
        if (cookie === undefined || !sameText(cookie, csrf)) {
          return signInForm(check, { error: "The form expired. Please sign in again." }, 403)
        }
        const email = (form.get("email") ?? "").trim()
        const password = form.get("password") ?? ""
        const at = yield* now
        const emailBucket = `signin-email:${email.toLowerCase()}`
        const addressBucket = `signin-address:${clientAddress(request, options.trustedProxies)}`
        const [byEmail, byAddress] = yield* Effect.all([
          repo.windowCount(emailBucket, SIGN_IN_WINDOW_SECONDS, at),
          repo.windowCount(addressBucket, SIGN_IN_WINDOW_SECONDS, at)
        ])
        const limit = decideSignInLimit(byEmail, byAddress, at.getTime())
        if (Result.isFailure(limit)) return signInForm(check, { email, error: limit.failure }, 429)
        const user = email === "" || password === "" ? undefined : yield* repo.signIn(email, password)
        if (user === undefined) {
          yield* Effect.all([
            repo.countInWindow(emailBucket, SIGN_IN_WINDOW_SECONDS, at),
            repo.countInWindow(addressBucket, SIGN_IN_WINDOW_SECONDS, at)
          ])
          return signInForm(check, { email, error: "The email or password is not right." }, 401)
        }
        const token = yield* repo.createSession(user.id, at)
        const location = `${AUTHORIZE_PATH}?${new URLSearchParams(check.hidden).toString()}`
        return HttpServerResponse.redirect(location, { status: 303, headers: { "cache-control": "no-store" } }).pipe(
          HttpServerResponse.setCookieUnsafe(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", secure: urls.secure, path: "/api/auth" }),
          HttpServerResponse.setCookieUnsafe(CSRF_COOKIE, "", { httpOnly: true, sameSite: "lax", secure: urls.secure, path: "/api/auth", maxAge: 0 })
        )
      }).pipe(Effect.orDie))

      // POST /api/auth/oauth2/authorize: the consent decision.
      yield* router.add("POST", AUTHORIZE_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = formOf(yield* request.text)
        const checked = yield* checkAuthorize(form)
        if (Result.isFailure(checked)) return refuse(checked.failure)
        const check = checked.success
        const session = yield* sessionFrom(request)
        if (session === undefined) return signInForm(check, { error: "Please sign in to continue." })
        if (!sameText(session.csrf, form.get("csrf") ?? "")) {
          return page(errorPage({ title: "The form expired", message: "Go back to the app and start again." }), 403)
        }
        const consent = decideConsent(form.get("decision") ?? undefined)
        const chosen = Result.isFailure(consent)
          ? Result.fail(consent.failure)
          : chooseOrganization(form.get("organizationId") ?? undefined, yield* repo.organizationsOf(session.userId))
        if (Result.isFailure(chosen)) {
          return chosen.failure._tag === "Denied"
            ? refuse({ _tag: "Redirect", redirectUri: check.redirectUri, error: "access_denied", description: "The user denied the request", state: check.state })
            : page(errorPage({ title: chosen.failure.title, message: chosen.failure.message }), 400)
        }
        const organization = chosen.success
        const code = yield* repo.createGrantAndCode({
          appId: check.app.id,
          userId: session.userId,
          organizationId: organization.id,
          scopes: check.scope.scopes,
          redirectUri: check.redirectUri,
          codeChallenge: check.codeChallenge,
          now: yield* now
        })
        return HttpServerResponse.redirect(redirectWith(check.redirectUri, { code, state: check.state }), {
          status: 303,
          headers: { "cache-control": "no-store" }
        })
      }).pipe(Effect.orDie))

      /**
       * The client of a token or revocation request: client_secret_basic or client_secret_post (one of
       * them, RFC 6749 2.3.1), its secret checked in constant time.
       */
      const authenticateClient = (request: HttpServerRequest.HttpServerRequest, form: URLSearchParams) =>
        Effect.gen(function*() {
          const authorization = request.headers["authorization"]
          const basic = authorization !== undefined && /^Basic\s+/i.test(authorization)
            ? Buffer.from(authorization.replace(/^Basic\s+/i, ""), "base64").toString("utf8")
            : undefined
          const credentials = clientCredentials(basic, form)
          if (Result.isFailure(credentials)) return Result.fail(credentials.failure)
          const found = decideClient(credentials.success, yield* repo.appByClientId(credentials.success.clientId))
          if (Result.isFailure(found)) return found
          return decideClient(credentials.success, found.success, yield* repo.verifyClientSecret(found.success, credentials.success.secret))
        })

      /** The token response: an access token, and a refresh token when the grant has offline_access. */
      const tokens = (app: AppRow, grant: GrantRow, scope: ReadonlyArray<string>, at: Date) =>
        Effect.gen(function*() {
          const accessToken = yield* keys.sign({
            sub: grant.userId,
            client_id: app.clientId,
            scope: scopeString(scope),
            organizationId: grant.organizationId,
            grant_id: grant.id,
            jti: randomUUID()
          }, { issuer: urls.issuer, audience: urls.audience })
          const refreshToken = grant.scopes.includes(OFFLINE_ACCESS) ? yield* repo.issueRefreshToken(grant.id, at) : undefined
          return HttpServerResponse.jsonUnsafe({
            access_token: accessToken,
            token_type: "Bearer",
            expires_in: ACCESS_TOKEN_SECONDS,
            ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
            scope: scopeString(scope)
          }, { headers: NO_STORE })
        })

      const formBody = (request: HttpServerRequest.HttpServerRequest) =>
        Effect.gen(function*() {
          const type = request.headers["content-type"] ?? ""
          if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined
          return formOf(yield* request.text)
        })

      // POST /api/auth/oauth2/token
      yield* router.add("POST", TOKEN_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* formBody(request)
        if (form === undefined) return tokenError(NOT_A_FORM)
        const params = checkTokenParams(form)
        if (Result.isFailure(params)) return tokenError(params.failure)
        const client = yield* authenticateClient(request, form)
        if (Result.isFailure(client)) return tokenError(client.failure)
        const app = client.success
        const at = yield* now
        const rate = yield* repo.countInWindow(`token:${app.clientId}`, 60, at)
        const allowed = decideTokenRate(rate.count, rate.resetsAt, at.getTime())
        if (Result.isFailure(allowed)) return tokenError(allowed.failure)
        const grant = decideGrantRequest(form)
        if (Result.isFailure(grant)) return tokenError(grant.failure)
        /** A refusal, after revoking the grant when it says so (a code or refresh token used twice). */
        const refused = (grantId: string | undefined, refusal: TokenRefusal) =>
          Effect.as(
            refusal.revokeGrant === undefined || grantId === undefined ? Effect.void : repo.revokeGrant(grantId, refusal.revokeGrant),
            tokenError(refusal)
          )
        if (grant.success._tag === "AuthorizationCode") {
          const { code, redirectUri, verifier } = grant.success
          const row = yield* repo.takeCode(code, app.id, at)
          const exchange = decideCodeExchange(row, app.id, { redirectUri, verifier }, at, s256)
          if (Result.isFailure(exchange)) return yield* refused(row?.grantId, exchange.failure)
          return yield* tokens(app, exchange.success, exchange.success.scopes, at)
        }
        const { refreshToken, scope: requested } = grant.success
        // A scope the grant does not have is refused before the token is spent (RFC 6749 6: a refused
        // request gives nothing, and the client's refresh token stays good).
        const before = checkRefreshScope(
          requested === undefined ? undefined : yield* repo.grantOfRefreshToken(refreshToken),
          app.id,
          requested
        )
        if (Result.isFailure(before)) return tokenError(before.failure)
        const row = yield* repo.takeRefreshToken(refreshToken, app.id, at)
        const refresh = decideRefresh(row, app.id, requested, at)
        if (Result.isFailure(refresh)) return yield* refused(row?.grantId, refresh.failure)
        return yield* tokens(app, refresh.success.row, refresh.success.scope.scopes, at)
      }).pipe(Effect.orDie))

      // POST /api/auth/oauth2/revoke (RFC 7009): a refresh or access token of the client ends its grant.
      yield* router.add("POST", REVOKE_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* formBody(request)
        if (form === undefined) return tokenError(NOT_A_FORM)
        const client = yield* authenticateClient(request, form)
        if (Result.isFailure(client)) return tokenError(client.failure)
        const token = form.get("token")
        if (token === null || token === "") return tokenError({ error: "invalid_request", description: "token is required" })
        const byRefresh = yield* repo.grantOfRefreshToken(token)
        if (byRefresh !== undefined) {
          if (byRefresh.appId === client.success.id) yield* repo.revokeGrant(byRefresh.id, "revoked_by_client")
        } else {
          const claims = yield* keys.verify(token, { issuer: urls.issuer, audience: urls.audience })
          if (claims !== undefined && claims.client_id === client.success.clientId) yield* repo.revokeGrant(claims.grant_id, "revoked_by_client")
        }
        return HttpServerResponse.empty({ status: 200, headers: NO_STORE })
      }).pipe(Effect.orDie))

      // GET /.well-known/oauth-authorization-server (RFC 8414)
      yield* router.add("GET", METADATA_PATH, Effect.succeed(HttpServerResponse.jsonUnsafe({
        issuer: urls.issuer,
        authorization_endpoint: urls.authorizationEndpoint,
        token_endpoint: urls.tokenEndpoint,
        jwks_uri: urls.jwksUri,
        revocation_endpoint: urls.revocationEndpoint,
        scopes_supported: OAUTH_SCOPES,
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        authorization_response_iss_parameter_supported: true
      })))

      // GET /api/auth/jwks
      yield* router.add("GET", JWKS_PATH, Effect.map(keys.jwks, (jwks) => HttpServerResponse.jsonUnsafe(jwks, { headers: { "cache-control": "public, max-age=300" } })))
    })
  )
