import {
  checkChallengeMethod,
  describeScope,
  isCodeChallenge,
  isCodeVerifier,
  narrowScope,
  OAUTH_SCOPES,
  OFFLINE_ACCESS,
  parseScope,
  redirectUriMatches,
  type RequestedScope,
  scopeString
} from "@bizops/domain"
import { Clock, Effect, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomUUID, timingSafeEqual } from "node:crypto"
import { Issuer } from "./Issuer.js"
import { type AppRow, type GrantRow, OAuthRepo } from "./OAuthRepo.js"
import { consentPage, errorPage, type HiddenFields, pageHeaders, signInPage } from "./Pages.js"
import { randomToken, s256 } from "./Secrets.js"
import { clientAddress } from "../Http/ClientAddress.js"
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
export const SIGN_IN_FAILURES_PER_EMAIL = 5
export const SIGN_IN_FAILURES_PER_ADDRESS = 50
const SIGN_IN_WINDOW_SECONDS = 15 * 60
/** Token endpoint requests per client per minute (contract). */
export const TOKEN_REQUESTS_PER_MINUTE = 120

const SESSION_COOKIE = "bo_session"
const CSRF_COOKIE = "bo_csrf"

/** The parameters of an authorization request, carried through the sign-in and consent forms. */
const AUTHORIZE_PARAMS = ["client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method"] as const

/** A page, with the headers of Pages.ts (a CSP without script, no framing, no caching, no referrer). */
const page = (html: string, status = 200) => {
  const { "content-type": contentType, ...headers } = pageHeaders
  return HttpServerResponse.text(html, { status, contentType, headers })
}

const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" }

/** An error of the token or revocation endpoint (RFC 6749 5.2): JSON `{error, error_description}`. */
const tokenError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe({ error, error_description: description }, { status, headers: { ...NO_STORE, ...headers } })

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** The outcome of checking an authorization request (RFC 6749 4.1.1, 4.1.2.1; RFC 7636; RFC 9700). */
type AuthorizeCheck =
  | { readonly kind: "page"; readonly title: string; readonly message: string }
  | { readonly kind: "redirect"; readonly location: string }
  | {
    readonly kind: "ok"
    readonly app: AppRow
    readonly redirectUri: string
    readonly scope: RequestedScope
    readonly state: string
    readonly codeChallenge: string
    readonly hidden: HiddenFields
  }

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

      const checkAuthorize = (params: URLSearchParams) =>
        Effect.gen(function*() {
          const refused = (title: string, message: string): AuthorizeCheck => ({ kind: "page", title, message })
          const single = (name: string) => params.getAll(name).length <= 1
          const clientId = params.get("client_id")
          if (clientId === null || clientId === "" || !single("client_id")) {
            return refused("This app is not known", "The link that brought you here names no app, or an app that does not exist. Go back to the app and try again.")
          }
          const app = yield* repo.appByClientId(clientId)
          if (app === undefined || app.disabledAt !== null) {
            return refused("This app is not known", "The app that sent you here does not exist or has been disabled.")
          }
          const redirectUri = params.get("redirect_uri")
          if (redirectUri === null || !single("redirect_uri") || !redirectUriMatches(app.redirectUris, redirectUri)) {
            return refused("The app's address is not right", `The address that ${app.name} asked to return to is not one it registered, so we will not send you there.`)
          }
          const state = params.get("state") ?? undefined
          const fail = (error: string, description: string): AuthorizeCheck => ({
            kind: "redirect",
            location: redirectWith(redirectUri, { error, error_description: description, state })
          })
          for (const name of AUTHORIZE_PARAMS) {
            if (!single(name)) return fail("invalid_request", `The parameter ${name} is repeated`)
          }
          const responseType = params.get("response_type")
          if (responseType === null) return fail("invalid_request", "response_type is required")
          if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported")
          if (state === undefined || state === "") return fail("invalid_request", "state is required")
          const method = checkChallengeMethod(params.get("code_challenge_method") ?? undefined)
          if (Result.isFailure(method)) return fail("invalid_request", method.failure)
          const challenge = params.get("code_challenge")
          if (challenge === null || !isCodeChallenge(challenge)) {
            return fail("invalid_request", "code_challenge is required: the base64url SHA-256 of the code verifier (43 characters)")
          }
          const scope = parseScope(params.get("scope") ?? undefined, app.scopes)
          if (Result.isFailure(scope)) return fail("invalid_scope", scope.failure)
          const hidden: Record<string, string> = {}
          for (const name of AUTHORIZE_PARAMS) {
            const value = params.get(name)
            if (value !== null) hidden[name] = value
          }
          const ok: AuthorizeCheck = { kind: "ok", app, redirectUri, scope: scope.success, state, codeChallenge: challenge, hidden }
          return ok
        })

      /** Answers a check that failed: the 400 page, or the redirect with the error. */
      const refuse = (check: Exclude<AuthorizeCheck, { readonly kind: "ok" }>) =>
        check.kind === "page"
          ? page(errorPage({ title: check.title, message: check.message }), 400)
          : HttpServerResponse.redirect(check.location, { status: 303, headers: { "cache-control": "no-store" } })

      const signInForm = (check: Extract<AuthorizeCheck, { readonly kind: "ok" }>, extra: { readonly email?: string; readonly error?: string }, status = 200) => {
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
        check: Extract<AuthorizeCheck, { readonly kind: "ok" }>,
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
        const check = yield* checkAuthorize(params)
        if (check.kind !== "ok") return refuse(check)
        const session = yield* sessionFrom(request)
        return session === undefined ? signInForm(check, {}) : yield* consentForm(check, session)
      }).pipe(Effect.orDie))

      // POST /api/auth/sign-in: the sign-in form (CSRF double-submit cookie), limited per email and address.
      yield* router.add("POST", SIGN_IN_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = formOf(yield* request.text)
        const check = yield* checkAuthorize(form)
        if (check.kind !== "ok") return refuse(check)
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
        if (byEmail.count >= SIGN_IN_FAILURES_PER_EMAIL || byAddress.count >= SIGN_IN_FAILURES_PER_ADDRESS) {
          const retry = Math.max(1, Math.ceil((Math.max(byEmail.resetsAt, byAddress.resetsAt) - at.getTime()) / 60_000))
          return signInForm(check, { email, error: `Too many failed attempts. Try again in ${retry} minute${retry === 1 ? "" : "s"}.` }, 429)
        }
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
        const check = yield* checkAuthorize(form)
        if (check.kind !== "ok") return refuse(check)
        const session = yield* sessionFrom(request)
        if (session === undefined) return signInForm(check, { error: "Please sign in to continue." })
        if (!sameText(session.csrf, form.get("csrf") ?? "")) {
          return page(errorPage({ title: "The form expired", message: "Go back to the app and start again." }), 403)
        }
        const decision = form.get("decision")
        if (decision === "deny") {
          return HttpServerResponse.redirect(
            redirectWith(check.redirectUri, { error: "access_denied", error_description: "The user denied the request", state: check.state }),
            { status: 303, headers: { "cache-control": "no-store" } }
          )
        }
        if (decision !== "approve") return page(errorPage({ title: "Choose Allow or Cancel", message: "The form did not say whether you allow the app." }), 400)
        const organizations = yield* repo.organizationsOf(session.userId)
        const chosen = form.get("organizationId") ?? (organizations.length === 1 ? organizations[0].id : "")
        const organization = organizations.find((org) => org.id === chosen)
        if (organization === undefined) {
          return page(errorPage({ title: "Choose an organization", message: "Choose which of your organizations the app may act on." }), 400)
        }
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
          let clientId: string | undefined
          let secret: string | undefined
          let basic = false
          if (authorization !== undefined && /^Basic\s+/i.test(authorization)) {
            basic = true
            const decoded = Buffer.from(authorization.replace(/^Basic\s+/i, ""), "base64").toString("utf8")
            const colon = decoded.indexOf(":")
            if (colon === -1) return Result.fail(tokenError(401, "invalid_client", "The Authorization header is not valid Basic credentials", { "www-authenticate": "Basic realm=\"oauth\"" }))
            try {
              clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "))
              secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "))
            } catch {
              return Result.fail(tokenError(401, "invalid_client", "The Authorization header is not valid Basic credentials", { "www-authenticate": "Basic realm=\"oauth\"" }))
            }
            if (form.has("client_secret")) return Result.fail(tokenError(400, "invalid_request", "Use one client authentication method, not two"))
            const bodyId = form.get("client_id")
            if (bodyId !== null && bodyId !== clientId) return Result.fail(tokenError(400, "invalid_request", "client_id does not match the Authorization header"))
          } else {
            clientId = form.get("client_id") ?? undefined
            secret = form.get("client_secret") ?? undefined
          }
          const challenge = basic ? { "www-authenticate": "Basic realm=\"oauth\"" } : {}
          if (clientId === undefined || secret === undefined || clientId === "") {
            return Result.fail(tokenError(401, "invalid_client", "Client authentication is required (client_secret_basic or client_secret_post)", challenge))
          }
          const app = yield* repo.appByClientId(clientId)
          const valid = app !== undefined && app.disabledAt === null && (yield* repo.verifyClientSecret(app, secret))
          if (app === undefined || !valid) return Result.fail(tokenError(401, "invalid_client", "The client is unknown, disabled, or its secret is not right", challenge))
          return Result.succeed(app)
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
        if (form === undefined) return tokenError(400, "invalid_request", "The body must be application/x-www-form-urlencoded")
        for (const name of ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "scope"]) {
          if (form.getAll(name).length > 1) return tokenError(400, "invalid_request", `The parameter ${name} is repeated`)
        }
        const client = yield* authenticateClient(request, form)
        if (Result.isFailure(client)) return client.failure
        const app = client.success
        const at = yield* now
        const rate = yield* repo.countInWindow(`token:${app.clientId}`, 60, at)
        if (rate.count > TOKEN_REQUESTS_PER_MINUTE) {
          const retry = Math.max(1, Math.ceil((rate.resetsAt - at.getTime()) / 1000))
          return tokenError(429, "temporarily_unavailable", `More than ${TOKEN_REQUESTS_PER_MINUTE} token requests a minute for this client; retry in ${retry} s`, { "retry-after": String(retry) })
        }
        const grantType = form.get("grant_type")
        if (grantType === "authorization_code") {
          const code = form.get("code")
          const redirectUri = form.get("redirect_uri")
          const verifier = form.get("code_verifier")
          if (code === null || redirectUri === null || verifier === null) {
            return tokenError(400, "invalid_request", "code, redirect_uri and code_verifier are required")
          }
          const row = yield* repo.takeCode(code, app.id, at)
          if (row === undefined || row.appId !== app.id) return tokenError(400, "invalid_grant", "The code is not valid")
          if (!row.firstUse) {
            yield* repo.revokeGrant(row.grantId, "code_reused")
            return tokenError(400, "invalid_grant", "The code was already used; the tokens issued from it are revoked")
          }
          if (row.expiresAt.getTime() <= at.getTime()) return tokenError(400, "invalid_grant", "The code has expired")
          if (row.revokedAt !== null || row.appDisabledAt !== null) return tokenError(400, "invalid_grant", "The authorization was revoked")
          if (redirectUri !== row.redirectUri) return tokenError(400, "invalid_grant", "redirect_uri is not the one of the authorization request")
          if (!isCodeVerifier(verifier) || !sameText(s256(verifier), row.codeChallenge)) {
            return tokenError(400, "invalid_grant", "The code_verifier does not match the code_challenge")
          }
          return yield* tokens(app, row, row.scopes, at)
        }
        if (grantType === "refresh_token") {
          const token = form.get("refresh_token")
          if (token === null) return tokenError(400, "invalid_request", "refresh_token is required")
          // A scope the grant does not have is refused before the token is spent (RFC 6749 6: a refused
          // request gives nothing, and the client's refresh token stays good).
          const requested = form.get("scope") ?? undefined
          const holder = yield* repo.grantOfRefreshToken(token)
          if (holder !== undefined && holder.appId === app.id && requested !== undefined) {
            const held = parseScope(scopeString(holder.scopes), holder.scopes)
            const narrowed = Result.flatMap(held, (granted) => narrowScope(granted, requested))
            if (Result.isSuccess(held) && Result.isFailure(narrowed)) return tokenError(400, "invalid_scope", narrowed.failure)
          }
          const row = yield* repo.takeRefreshToken(token, app.id, at)
          if (row === undefined || row.appId !== app.id) return tokenError(400, "invalid_grant", "The refresh token is not valid")
          if (!row.firstUse) {
            yield* repo.revokeGrant(row.grantId, "refresh_token_reused")
            return tokenError(400, "invalid_grant", "The refresh token was already used; the authorization is revoked")
          }
          if (row.expiresAt.getTime() <= at.getTime()) return tokenError(400, "invalid_grant", "The refresh token has expired")
          if (row.revokedAt !== null || row.appDisabledAt !== null) return tokenError(400, "invalid_grant", "The authorization was revoked")
          const granted = parseScope(scopeString(row.scopes), row.scopes)
          if (Result.isFailure(granted)) return tokenError(400, "invalid_grant", "The authorization's scope is no longer valid")
          const scope = narrowScope(granted.success, requested)
          if (Result.isFailure(scope)) return tokenError(400, "invalid_scope", scope.failure)
          return yield* tokens(app, row, scope.success.scopes, at)
        }
        return grantType === null
          ? tokenError(400, "invalid_request", "grant_type is required")
          : tokenError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
      }).pipe(Effect.orDie))

      // POST /api/auth/oauth2/revoke (RFC 7009): a refresh or access token of the client ends its grant.
      yield* router.add("POST", REVOKE_PATH, Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* formBody(request)
        if (form === undefined) return tokenError(400, "invalid_request", "The body must be application/x-www-form-urlencoded")
        const client = yield* authenticateClient(request, form)
        if (Result.isFailure(client)) return client.failure
        const token = form.get("token")
        if (token === null || token === "") return tokenError(400, "invalid_request", "token is required")
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
