import { expect, layer } from "@effect/vitest"
import { expectError, get, makeTestServer, post, ShiftedClock, TestServer } from "@bizops/testkit"
import { Effect } from "effect"
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, type JSONWebKeySet, jwtVerify, SignJWT } from "jose"
import { randomUUID } from "node:crypto"
import * as oauth from "oauth4webapi"
import {
  type Authorization,
  Browser,
  codeGrant,
  type EndpointResponse,
  exchangeCode,
  formOf,
  hiddenField,
  type Page,
  postForm,
  postRaw,
  refresh,
  refreshGrant,
  revocation,
  revoke
} from "./oauthClient.js"
import { approve, authorize, locationOf, PASSWORD, REDIRECT_URI, SCOPE, secretBasic, secretPost, type Setup, setup, signIn, start, tokensFor } from "./oauthFlow.js"

/**
 * The server reads this clock: tests move it past a code's 60 seconds, an access token's hour, a retired
 * key's hour and a refresh token's 30 days (the tests run in order, each with its own users and apps).
 */
const clock = new ShiftedClock()

/** The raw answer of the token endpoint to the exchange of an authorization's code, with the redirect URI or the verifier changed. */
const exchangeWith = (s: Setup, a: Authorization & { readonly callback: URLSearchParams }, change: { readonly redirectUri?: string; readonly codeVerifier?: string } = {}) =>
  codeGrant(s.as, s.client, secretPost(s), a.callback, change.redirectUri ?? a.redirectUri, change.codeVerifier ?? a.codeVerifier)

/** An /api/v1 request with the access token. */
const api = (accessToken: string, path = "/api/v1/clients") => get(path, { bearer: accessToken })

/** The access token verified as a resource server would: the JWKS, issuer, audience, typ, algorithm. */
const verifyAccessToken = (s: Setup, accessToken: string) =>
  Effect.promise(async () => {
    const jwks = (await (await fetch(s.as.jwks_uri ?? "")).json()) as JSONWebKeySet
    return jwtVerify(accessToken, createLocalJWKSet(jwks), {
      issuer: s.server.baseUrl,
      audience: `${s.server.baseUrl}/api/v1`,
      typ: "at+jwt",
      algorithms: ["EdDSA"],
      currentDate: new Date(clock.currentTimeMillisUnsafe())
    })
  })

/** The published key set. */
const publishedKeys = Effect.map(get("/api/auth/jwks"), (res) => {
  expect(res.status).toBe(200)
  return res.body as JSONWebKeySet
})

/** An RFC 6749 5.2 error of the token endpoint: JSON {error, error_description}, not cacheable. */
const expectTokenError = (res: EndpointResponse, status: number, error: string) => {
  expect(res.status).toBe(status)
  expect(res.headers.get("content-type")).toMatch(/^application\/json/)
  expect(res.headers.get("cache-control")).toContain("no-store")
  expect(res.body).toMatchObject({ error })
  expect(typeof res.body.error_description).toBe("string")
}

/** An error page that does not send the browser anywhere (the redirect would be unsafe). */
const expectErrorPage = (page: Page, status: number) => {
  expect(page.status).toBe(status)
  expect(page.location).toBeNull()
  expect(page.headers.get("content-type")).toMatch(/^text\/html/)
  expect(page.html).toMatch(/^<!doctype html>/i)
}

/** An authorization error redirected to the app (RFC 6749 4.1.2.1, RFC 9207): error, state, iss. */
const expectErrorRedirect = (s: Setup, page: Page, error: string, state: string | null) => {
  const url = locationOf(page)
  expect(`${url.origin}${url.pathname}`).toBe(s.redirectUri)
  expect(url.searchParams.get("error")).toBe(error)
  expect(url.searchParams.get("state")).toBe(state)
  expect(url.searchParams.get("iss")).toBe(s.server.baseUrl)
  expect(url.searchParams.has("code")).toBe(false)
  return url
}

/** Whether the browser holds a sign-in session. */
const signedIn = (browser: Browser) => browser.cookie("bo_session") !== undefined

layer(makeTestServer({ clock }))("OAuth 2.0 authorization server", (it) => {
  // --- The whole flow ---------------------------------------------------------------------------

  it.effect("the whole flow with oauth4webapi and client_secret_post: discovery, PKCE, sign-in, consent, an at+jwt, the API, refresh", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const base = s.server.baseUrl
      // Discovery (RFC 8414), checked by oauth4webapi against the issuer.
      expect(s.as).toMatchObject({
        issuer: base,
        authorization_endpoint: `${base}/api/auth/oauth2/authorize`,
        token_endpoint: `${base}/api/auth/oauth2/token`,
        jwks_uri: `${base}/api/auth/jwks`,
        revocation_endpoint: `${base}/api/auth/oauth2/revoke`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        authorization_response_iss_parameter_supported: true
      })
      expect([...(s.as.token_endpoint_auth_methods_supported ?? [])].sort()).toEqual(["client_secret_basic", "client_secret_post"])
      for (const scope of ["read:clients", "write:clients", "offline_access"]) expect(s.as.scopes_supported).toContain(scope)

      // The browser: sign-in form (CSRF cookie), consent page, redirect back with code, state and iss.
      const authorization = yield* start(s)
      const browser = new Browser(base)
      const signInPage = yield* browser.open(authorization.url)
      expect(signInPage.status).toBe(200)
      const signInForm = formOf(signInPage)
      expect(signInForm.action).toBe(`${base}/api/auth/sign-in`)
      expect(hiddenField(signInForm, "csrf")).toBe(browser.cookie("bo_csrf")?.value)
      expect(hiddenField(signInForm, "state")).toBe(authorization.state)
      const afterSignIn = yield* browser.submit(signInForm, { email: s.user.email, password: s.user.password })
      expect(locationOf(afterSignIn).pathname).toBe("/api/auth/oauth2/authorize")
      expect(browser.cookie("bo_session")).toMatchObject({ httpOnly: true, path: "/api/auth" })
      expect(browser.cookie("bo_session")?.sameSite?.toLowerCase()).toBe("lax")
      const consent = yield* browser.follow(afterSignIn)
      expect(consent.status).toBe(200)
      expect(consent.html).toContain("Ledger Sync")
      expect(formOf(consent).buttons).toEqual(expect.arrayContaining([["decision", "approve"], ["decision", "deny"]]))
      expect(hiddenField(formOf(consent), "organizationId")).toBe(s.org.organizationId)
      const redirect = yield* approve(browser, consent)
      expect(redirect.searchParams.get("iss")).toBe(base)
      const callback = oauth.validateAuthResponse(s.as, s.client, redirect, authorization.state)

      // The code for tokens.
      const tokens = yield* exchangeCode(s.as, s.client, secretPost(s), callback, authorization.redirectUri, authorization.codeVerifier)
      expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: SCOPE })
      expect(typeof tokens.refresh_token).toBe("string")

      // The access token: an RFC 9068 JWT signed with a key of the JWKS.
      const header = decodeProtectedHeader(tokens.access_token)
      expect(header).toMatchObject({ typ: "at+jwt", alg: "EdDSA" })
      const jwks = yield* publishedKeys
      expect(jwks.keys.map((k) => k.kid)).toContain(header.kid)
      expect(jwks.keys.find((k) => k.kid === header.kid)).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" })
      for (const key of jwks.keys) expect(key).not.toHaveProperty("d")
      const { payload } = yield* verifyAccessToken(s, tokens.access_token)
      expect(payload).toMatchObject({
        iss: base,
        aud: `${base}/api/v1`,
        sub: s.user.userId,
        client_id: s.app.clientId,
        scope: SCOPE,
        organizationId: s.org.organizationId
      })
      expect(typeof payload.jti).toBe("string")
      expect(typeof payload.grant_id).toBe("string")
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600)
      expect(Math.abs((payload.iat ?? 0) - clock.currentTimeMillisUnsafe() / 1000)).toBeLessThan(60)

      // The API, acting on the organization of the token.
      const listed = yield* api(tokens.access_token)
      expect(listed.status).toBe(200)
      expect(listed.headers.get("x-ratelimit-limit")).toBe("1000")
      expect(Number(listed.headers.get("x-ratelimit-remaining"))).toBe(999)
      expect(Number(listed.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000)

      // Refresh: a new pair; the old refresh token is then spent, and presenting it revokes the grant.
      const refreshed = yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expect(refreshed.access_token).not.toBe(tokens.access_token)
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
      expect(refreshed).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: SCOPE })
      expect(decodeJwt(refreshed.access_token)).toMatchObject({ sub: s.user.userId, organizationId: s.org.organizationId, grant_id: payload.grant_id })
      expect(decodeJwt(refreshed.access_token).jti).not.toBe(payload.jti)
      // The rate limit counts per grant: the refreshed token draws on the same window.
      const again = yield* api(refreshed.access_token)
      expect(again.status).toBe(200)
      expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(998)
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? ""), 400, "invalid_grant")
      expectError(yield* api(refreshed.access_token), 401, "unauthorized")
    }))

  it.effect("the whole flow with client_secret_basic: code, refresh, then revocation ends the grant", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s, secretBasic(s))
      expect((yield* api(tokens.access_token)).status).toBe(200)
      const refreshed = yield* refresh(s.as, s.client, secretBasic(s), tokens.refresh_token ?? "")
      expect((yield* api(refreshed.access_token)).status).toBe(200)
      // RFC 7009: revoking the refresh token ends the grant; its access token fails at once.
      yield* revoke(s.as, s.client, secretBasic(s), refreshed.refresh_token ?? "")
      expectError(yield* api(refreshed.access_token), 401, "unauthorized")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretBasic(s), refreshed.refresh_token ?? ""), 400, "invalid_grant")
      // Revoking with an access token ends its grant too; an unknown token is 200 all the same.
      const second = yield* tokensFor(s, secretBasic(s))
      yield* revoke(s.as, s.client, secretBasic(s), second.access_token)
      expectError(yield* api(second.access_token), 401, "unauthorized")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretBasic(s), second.refresh_token ?? ""), 400, "invalid_grant")
      yield* revoke(s.as, s.client, secretBasic(s), "not-a-token-we-issued")
    }))

  // --- Failures at the token endpoint -----------------------------------------------------------

  it.effect("a wrong code_verifier is invalid_grant", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* authorize(s)
      expectTokenError(yield* exchangeWith(s, a, { codeVerifier: oauth.generateRandomCodeVerifier() }), 400, "invalid_grant")
      // The challenge itself, as the plain method would take it.
      const b = yield* authorize(s)
      const challenge = new URL(b.url).searchParams.get("code_challenge") ?? ""
      expectTokenError(yield* exchangeWith(s, b, { codeVerifier: challenge }), 400, "invalid_grant")
    }))

  it.effect("a reused code is invalid_grant and revokes the tokens issued from it", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* authorize(s)
      const first = yield* exchangeWith(s, a)
      expect(first.status).toBe(200)
      expect((yield* api(first.body.access_token)).status).toBe(200)
      expectTokenError(yield* exchangeWith(s, a), 400, "invalid_grant")
      expectError(yield* api(first.body.access_token), 401, "unauthorized")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), first.body.refresh_token), 400, "invalid_grant")
    }))

  it.effect("a code older than 60 seconds is invalid_grant", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const fresh = yield* authorize(s)
      yield* clock.advance("55 seconds")
      expect((yield* exchangeWith(s, fresh)).status).toBe(200)
      const a = yield* authorize(s)
      yield* clock.advance("61 seconds")
      expectTokenError(yield* exchangeWith(s, a), 400, "invalid_grant")
    }))

  it.effect("a redirect_uri other than the authorization request's is invalid_grant (even one the app registered)", () =>
    Effect.gen(function*() {
      const s = yield* setup({ redirectUris: [REDIRECT_URI, "https://app.example.com/other-callback"] })
      const a = yield* authorize(s)
      expectTokenError(yield* exchangeWith(s, a, { redirectUri: "https://app.example.com/other-callback" }), 400, "invalid_grant")
    }))

  it.effect("a refresh token used twice is invalid_grant and revokes the whole grant (the newest tokens too)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const first = yield* tokensFor(s)
      const second = yield* refresh(s.as, s.client, secretPost(s), first.refresh_token ?? "")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), first.refresh_token ?? ""), 400, "invalid_grant")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), second.refresh_token ?? ""), 400, "invalid_grant")
      expectError(yield* api(second.access_token), 401, "unauthorized")
      expectError(yield* api(first.access_token), 401, "unauthorized")
    }))

  // --- Grants ended by the user or the operator -------------------------------------------------

  it.effect("a user revoking the app: the very next API request is 401 and the refresh token is invalid_grant", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      expect((yield* api(tokens.access_token)).status).toBe(200)
      // Another user of the same app and organization.
      const email = `colleague-${randomUUID()}@example.com`
      const colleague = yield* Effect.orDie(s.server.oauth.createUser({ email, password: PASSWORD, organizationId: s.org.organizationId }))
      const theirs = yield* tokensFor({ ...s, user: { userId: colleague.userId, email, password: PASSWORD } })

      yield* Effect.orDie(s.server.oauth.revokeForUser(s.app.clientId, s.user.userId))
      expectError(yield* api(tokens.access_token), 401, "unauthorized")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? ""), 400, "invalid_grant")
      // Only that user's grant ended.
      expect((yield* api(theirs.access_token)).status).toBe(200)
      expect((yield* refresh(s.as, s.client, secretPost(s), theirs.refresh_token ?? "")).access_token).toBeTruthy()
    }))

  it.effect("a disabled app: tokens fail at once, authorize is a 400 page; enabled again, old tokens stay dead and new ones work", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      expect((yield* api(tokens.access_token)).status).toBe(200)
      yield* Effect.orDie(s.server.oauth.setDisabled(s.app.clientId, true))
      expectError(yield* api(tokens.access_token), 401, "unauthorized")
      expectErrorPage(yield* new Browser(s.server.baseUrl).open((yield* start(s)).url), 400)
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? ""), 401, "invalid_client")

      yield* Effect.orDie(s.server.oauth.setDisabled(s.app.clientId, false))
      expectError(yield* api(tokens.access_token), 401, "unauthorized")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? ""), 400, "invalid_grant")
      const fresh = yield* tokensFor(s)
      expect((yield* api(fresh.access_token)).status).toBe(200)
    }))

  it.effect("a rotated client secret: the old one is invalid_client at once, the new one refreshes, the access token keeps working", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      const rotated = yield* Effect.orDie(s.server.oauth.rotateSecret(s.app.clientId))
      expect(rotated.clientSecret).not.toBe(s.app.clientSecret)
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? ""), 401, "invalid_client")
      expect((yield* api(tokens.access_token)).status).toBe(200)
      const refreshed = yield* refresh(s.as, s.client, secretPost(s, rotated.clientSecret), tokens.refresh_token ?? "")
      expect((yield* api(refreshed.access_token)).status).toBe(200)
      expect((yield* api(tokens.access_token)).status).toBe(200)
    }))

  // --- What a token may do ----------------------------------------------------------------------

  it.effect("a token of organization A reading a record of organization B is 404", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      const other = yield* s.server.organization()
      const theirs = yield* post("/api/v1/clients", { name: "Theirs" }, { key: other.apiKey })
      expect(theirs.status).toBe(201)
      const ours = yield* post("/api/v1/clients", { name: "Ours" }, { key: s.org.apiKey })
      expect(ours.status).toBe(201)
      expect((yield* api(tokens.access_token, `/api/v1/clients/${ours.body.id}`)).status).toBe(200)
      expectError(yield* api(tokens.access_token, `/api/v1/clients/${theirs.body.id}`), 404, "not_found")
      const listed = yield* api(tokens.access_token)
      expect(listed.body.data.map((c: any) => c.id)).toEqual([ours.body.id])
    }))

  it.effect("a token with read:clients only: GET is 200, POST is 403 forbidden naming clients:write", () =>
    Effect.gen(function*() {
      const s = yield* setup({ scope: "read:clients" })
      const tokens = yield* tokensFor(s)
      expect(tokens.scope).toBe("read:clients")
      expect((yield* api(tokens.access_token)).status).toBe(200)
      const res = yield* post("/api/v1/clients", { name: "Nope" }, { bearer: tokens.access_token })
      expectError(res, 403, "forbidden")
      expect(res.body.error.message).toContain("clients:write")
    }))

  it.effect("without offline_access there is no refresh token", () =>
    Effect.gen(function*() {
      const s = yield* setup({ scope: "read:clients write:clients" })
      const a = yield* authorize(s)
      const res = yield* exchangeWith(s, a)
      expect(res.status).toBe(200)
      expect(res.headers.get("cache-control")).toContain("no-store")
      expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "read:clients write:clients" })
      expect(res.body).not.toHaveProperty("refresh_token")
      expect((yield* api(res.body.access_token)).status).toBe(200)
    }))

  it.effect("a refresh may narrow the scope, never widen it", () =>
    Effect.gen(function*() {
      const s = yield* setup({ appScopes: ["read:clients", "write:clients", "read:contacts", "offline_access"], scope: "read:clients write:clients offline_access" })
      const tokens = yield* tokensFor(s)
      const narrowed = yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "", { scope: "read:clients" })
      expect(narrowed.scope).toBe("read:clients")
      expect(decodeJwt(narrowed.access_token).scope).toBe("read:clients")
      expect((yield* api(narrowed.access_token)).status).toBe(200)
      expectError(yield* post("/api/v1/clients", { name: "Nope" }, { bearer: narrowed.access_token }), 403, "forbidden")
      // The refresh token keeps the granted scope.
      const back = yield* refresh(s.as, s.client, secretPost(s), narrowed.refresh_token ?? "")
      expect(back.scope).toBe("read:clients write:clients offline_access")
      expect((yield* post("/api/v1/clients", { name: "Yes" }, { bearer: back.access_token })).status).toBe(201)
    }))

  it.effect("a refresh refused for a wider scope does not spend the refresh token", () =>
    Effect.gen(function*() {
      const s = yield* setup({ appScopes: ["read:clients", "write:clients", "read:contacts", "offline_access"], scope: "read:clients offline_access" })
      const tokens = yield* tokensFor(s)
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? "", { scope: "read:clients read:contacts" }), 400, "invalid_scope")
      // No new refresh token was issued, so the one the app holds must still work (and not count as reused).
      const refreshed = yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      expect((yield* api(tokens.access_token)).status).toBe(200)
    }))

  it.effect("a forged, tampered or expired access token is 401", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      const [header, payload, signature] = tokens.access_token.split(".")
      const claims = decodeJwt(tokens.access_token)
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
      const other = yield* s.server.organization()
      // Another organization put into the claims, the signature kept.
      expectError(yield* api([header, encode({ ...claims, organizationId: other.organizationId }), signature].join(".")), 401, "unauthorized")
      // Signed by someone else's key under the server's kid.
      const forged = yield* Effect.promise(async () => {
        const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" })
        return new SignJWT(claims).setProtectedHeader(decodeProtectedHeader(tokens.access_token) as { alg: string }).sign(privateKey)
      })
      expectError(yield* api(forged), 401, "unauthorized")
      // alg none.
      expectError(yield* api(`${encode({ alg: "none", typ: "at+jwt" })}.${payload}.`), 401, "unauthorized")
      expect((yield* api(tokens.access_token)).status).toBe(200)
      // An hour later the token has expired; a refresh gives a working one.
      yield* clock.advance("3601 seconds")
      expectError(yield* api(tokens.access_token), 401, "unauthorized")
      const refreshed = yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expect((yield* api(refreshed.access_token)).status).toBe(200)
    }))

  // --- Failures at the authorization endpoint ---------------------------------------------------

  it.effect("authorization request errors are redirected to the app with error, state and iss", () =>
    Effect.gen(function*() {
      const s = yield* setup({ appScopes: ["read:clients", "offline_access"], scope: "read:clients offline_access" })
      const browser = new Browser(s.server.baseUrl)
      const cases: Array<[string, Record<string, string | undefined>, string]> = [
        ["plain PKCE", { code_challenge_method: "plain", code_challenge: oauth.generateRandomCodeVerifier() }, "invalid_request"],
        ["no code_challenge_method", { code_challenge_method: undefined }, "invalid_request"],
        ["no code_challenge", { code_challenge: undefined }, "invalid_request"],
        ["a malformed code_challenge", { code_challenge: "too-short" }, "invalid_request"],
        ["an unknown scope", { scope: "read:clients read:nonsense" }, "invalid_scope"],
        ["a scope the app did not register", { scope: "read:clients write:clients" }, "invalid_scope"],
        ["no scope", { scope: undefined }, "invalid_scope"],
        ["response_type=token", { response_type: "token" }, "unsupported_response_type"]
      ]
      for (const [why, params, error] of cases) {
        const a = yield* start(s, params)
        const url = expectErrorRedirect(s, yield* browser.open(a.url), error, a.state)
        expect(url.searchParams.get("error_description"), why).toBeTruthy()
        // The app's library sees the error, after checking state and iss.
        expect(() => oauth.validateAuthResponse(s.as, s.client, url, a.state), why).toThrow(oauth.AuthorizationResponseError)
      }
      // No state: the error is still redirected, without one.
      const noState = yield* start(s, { state: undefined })
      expectErrorRedirect(s, yield* browser.open(noState.url), "invalid_request", null)
      // A repeated parameter.
      const repeated = yield* start(s)
      expectErrorRedirect(s, yield* browser.open(`${repeated.url}&scope=read%3Aclients`), "invalid_request", repeated.state)
      expect(signedIn(browser)).toBe(false)
    }))

  it.effect("an unknown client or an unregistered redirect_uri is a 400 page, never a redirect", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const browser = new Browser(s.server.baseUrl)
      const unsafe: Array<Record<string, string | undefined>> = [
        { client_id: "boc_00000000000000000000000000000000" },
        { client_id: undefined },
        { redirect_uri: "https://evil.example/callback" },
        { redirect_uri: "https://app.example.com/callback/" },
        { redirect_uri: "https://app.example.com/callback?x=1" },
        { redirect_uri: "https://app.example.com:8443/callback" },
        { redirect_uri: undefined },
        // Even with another error in the request: the redirect URI is checked first.
        { redirect_uri: "https://evil.example/callback", code_challenge_method: "plain" }
      ]
      for (const params of unsafe) {
        const page = yield* browser.open((yield* start(s, params)).url)
        expectErrorPage(page, 400)
        expect(page.html).not.toContain("evil.example")
      }
    }))

  it.effect("a loopback redirect URI is accepted with another port (RFC 8252), but not another host or path", () =>
    Effect.gen(function*() {
      const s = yield* setup({ redirectUris: ["http://127.0.0.1:8765/callback"] })
      const redirectUri = "http://127.0.0.1:49152/callback"
      const a = yield* authorize(s, { redirect_uri: redirectUri })
      const tokens = yield* exchangeCode(s.as, s.client, secretPost(s), a.callback, redirectUri, a.codeVerifier)
      expect((yield* api(tokens.access_token)).status).toBe(200)
      const browser = new Browser(s.server.baseUrl)
      for (const other of ["http://localhost:49152/callback", "http://127.0.0.1:49152/other", "https://127.0.0.1:8765/callback"]) {
        expectErrorPage(yield* browser.open((yield* start(s, { redirect_uri: other })).url), 400)
      }
    }))

  it.effect("the operator can register only https redirect URIs, or http ones on a loopback host", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const uri of ["http://app.example.com/callback", "http://10.0.0.1/callback", "https://app.example.com/callback#fragment"]) {
        const refused = yield* Effect.flip(server.oauth.createApp({ name: "Bad", redirectUris: [uri], scopes: ["read:clients"] }))
        expect(refused, uri).toMatchObject({ _tag: "AdminError", code: "invalid_redirect_uri" })
      }
    }))

  // --- The sign-in form -------------------------------------------------------------------------

  it.effect("a wrong password is a 401 page and no session", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* start(s)
      const browser = new Browser(s.server.baseUrl)
      const page = yield* browser.open(a.url)
      const answer = yield* browser.submit(formOf(page), { email: s.user.email, password: "not the password" })
      expectErrorPage(answer, 401)
      expect(answer.html).toContain("The email or password is not right.")
      expect(signedIn(browser)).toBe(false)
      // Still the sign-in form, not the consent page.
      const again = yield* browser.open(a.url)
      expect(again.status).toBe(200)
      expect(formOf(again).action).toBe(`${s.server.baseUrl}/api/auth/sign-in`)
    }))

  it.effect("after 5 wrong passwords the right one is a 429 page", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* start(s)
      const browser = new Browser(s.server.baseUrl)
      let page = yield* browser.open(a.url)
      for (let i = 0; i < 5; i++) {
        page = yield* browser.submit(formOf(page), { email: s.user.email, password: `wrong password ${i}` })
        expect(page.status).toBe(401)
      }
      const blocked = yield* browser.submit(formOf(page), { email: s.user.email, password: s.user.password })
      expectErrorPage(blocked, 429)
      expect(blocked.html).toContain("Too many failed attempts")
      expect(signedIn(browser)).toBe(false)
    }))

  it.effect("CSRF: a sign-in without the csrf cookie is 403, and a consent with a wrong csrf is 403", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* start(s)
      const browser = new Browser(s.server.baseUrl)
      const signInPage = yield* browser.open(a.url)
      browser.forget("bo_csrf")
      const refused = yield* browser.submit(formOf(signInPage), { email: s.user.email, password: s.user.password })
      expectErrorPage(refused, 403)
      expect(signedIn(browser)).toBe(false)

      const consent = yield* signIn(browser, a.url, s.user)
      const forged = yield* browser.submit(formOf(consent), { decision: "approve" }, { replace: { csrf: "forged" } })
      expectErrorPage(forged, 403)
      const missing = yield* browser.submit(formOf(consent), { decision: "approve" }, { without: ["csrf"] })
      expectErrorPage(missing, 403)
    }))

  // --- The consent page -------------------------------------------------------------------------

  it.effect("a signed-in browser goes straight to the consent page; a consent without a session shows the sign-in form", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const first = yield* authorize(s)
      const second = yield* start(s)
      const consent = yield* first.browser.open(second.url)
      expect(consent.status).toBe(200)
      expect(formOf(consent).action).toBe(`${s.server.baseUrl}/api/auth/oauth2/authorize`)
      const redirect = yield* approve(first.browser, consent)
      const callback = oauth.validateAuthResponse(s.as, s.client, redirect, second.state)
      expect(callback.get("code")).not.toBe(first.callback.get("code"))

      const stranger = new Browser(s.server.baseUrl)
      const answer = yield* stranger.submit(formOf(consent), { decision: "approve" })
      expect(answer.location).toBeNull()
      expect(formOf(answer).action).toBe(`${s.server.baseUrl}/api/auth/sign-in`)
    }))

  it.effect("Cancel on the consent page redirects with access_denied, state and iss", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const a = yield* start(s)
      const browser = new Browser(s.server.baseUrl)
      const consent = yield* signIn(browser, a.url, s.user)
      const denied = yield* browser.submit(formOf(consent), { decision: "deny" })
      const url = expectErrorRedirect(s, denied, "access_denied", a.state)
      const error = yield* Effect.flip(Effect.try(() => oauth.validateAuthResponse(s.as, s.client, url, a.state)))
      expect(error.cause).toMatchObject({ error: "access_denied" })
    }))

  it.effect("a user of two organizations chooses one; the token acts on the chosen one", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const second = yield* s.server.organization()
      const stranger = yield* s.server.organization()
      yield* Effect.orDie(s.server.oauth.addUserToOrganization(s.user.userId, second.organizationId))
      const a = yield* start(s)
      const browser = new Browser(s.server.baseUrl)
      const consent = yield* signIn(browser, a.url, s.user)
      const form = formOf(consent)
      expect(hiddenField(form, "organizationId")).toBeUndefined()
      const choices = form.radios.filter((r) => r.name === "organizationId")
      expect(choices.map((r) => r.value).sort()).toEqual([s.org.organizationId, second.organizationId].sort())
      expect(choices.every((r) => r.required && !r.checked)).toBe(true)

      expectErrorPage(yield* browser.submit(form, { decision: "approve" }), 400)
      expectErrorPage(yield* browser.submit(form, { organizationId: stranger.organizationId, decision: "approve" }), 400)

      const redirect = yield* approve(browser, consent, { organizationId: second.organizationId })
      const callback = oauth.validateAuthResponse(s.as, s.client, redirect, a.state)
      const tokens = yield* exchangeCode(s.as, s.client, secretPost(s), callback, a.redirectUri, a.codeVerifier)
      const { payload } = yield* verifyAccessToken(s, tokens.access_token)
      expect(payload.organizationId).toBe(second.organizationId)
      const theirs = yield* post("/api/v1/clients", { name: "In the second organization" }, { key: second.apiKey })
      expect((yield* api(tokens.access_token, `/api/v1/clients/${theirs.body.id}`)).status).toBe(200)
    }))

  // --- The token endpoint's error answers -------------------------------------------------------

  it.effect("token endpoint errors are JSON {error, error_description} with Cache-Control: no-store", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const endpoint = s.as.token_endpoint ?? ""
      const client = { client_id: s.app.clientId, client_secret: s.app.clientSecret }
      expectTokenError(yield* postForm(endpoint, { ...client, grant_type: "password", username: "u", password: "p" }), 400, "unsupported_grant_type")
      expectTokenError(yield* postForm(endpoint, { ...client, grant_type: "authorization_code" }), 400, "invalid_request")
      expectTokenError(yield* postForm(endpoint, { ...client }), 400, "invalid_request")
      expectTokenError(
        yield* postForm(endpoint, { ...client, grant_type: "authorization_code", code: "made-up", redirect_uri: REDIRECT_URI, code_verifier: oauth.generateRandomCodeVerifier() }),
        400,
        "invalid_grant"
      )
      expectTokenError(yield* postForm(endpoint, { ...client, grant_type: "refresh_token", refresh_token: "made-up" }), 400, "invalid_grant")
      expectTokenError(yield* postForm(endpoint, { ...client, client_secret: "wrong", grant_type: "refresh_token", refresh_token: "x" }), 401, "invalid_client")
      expectTokenError(yield* postForm(endpoint, { client_id: "boc_unknown", client_secret: "x", grant_type: "refresh_token", refresh_token: "x" }), 401, "invalid_client")
      expectTokenError(yield* postForm(endpoint, { grant_type: "refresh_token", refresh_token: "x" }), 401, "invalid_client")
      // Two client authentication methods at once; a repeated parameter; a body that is not a form.
      const basicHeader = { authorization: `Basic ${Buffer.from(`${s.app.clientId}:${s.app.clientSecret}`).toString("base64")}` }
      expectTokenError(yield* postForm(endpoint, { ...client, grant_type: "refresh_token", refresh_token: "x" }, basicHeader), 400, "invalid_request")
      const form = `${new URLSearchParams(client)}&grant_type=refresh_token&refresh_token=a&refresh_token=b`
      expectTokenError(yield* postRaw(endpoint, "application/x-www-form-urlencoded", form), 400, "invalid_request")
      const json = JSON.stringify({ ...client, grant_type: "refresh_token", refresh_token: "x" })
      expectTokenError(yield* postRaw(endpoint, "application/json", json), 400, "invalid_request")
      // Another client's code.
      const other = yield* setup()
      const a = yield* authorize(other)
      expectTokenError(yield* codeGrant(s.as, s.client, secretPost(s), a.callback, a.redirectUri, a.codeVerifier), 400, "invalid_grant")
    }))

  it.effect("more than 120 token requests a minute from one client are 429 temporarily_unavailable with Retry-After", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s) // one request of the minute
      const bad = () => refreshGrant(s.as, s.client, secretPost(s), "bor_not-a-refresh-token")
      for (let i = 1; i < 120; i++) expect((yield* bad()).status).toBe(400)
      const limited = yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expectTokenError(limited, 429, "temporarily_unavailable")
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
      // Other clients are not held up; a minute later this one is served again.
      const other = yield* setup()
      expect((yield* tokensFor(other)).access_token).toBeTruthy()
      yield* clock.advance("61 seconds")
      expect((yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")).access_token).toBeTruthy()
    }))

  it.effect("a client cannot revoke another client's tokens", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const other = yield* setup()
      const tokens = yield* tokensFor(s)
      // (RFC 7009 lets the server answer 200 or refuse; either way the grant must live on.)
      for (const token of [tokens.access_token, tokens.refresh_token ?? ""]) yield* revocation(other.as, other.client, secretPost(other), token)
      expect((yield* api(tokens.access_token)).status).toBe(200)
      expect((yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")).access_token).toBeTruthy()
      // And revocation needs the client's own credentials.
      expect((yield* revocation(s.as, s.client, secretPost(s, "bos_wrong"), tokens.access_token)).status).toBe(401)
      expect((yield* api(tokens.access_token)).status).toBe(200)
    }))

  it.effect("another client presenting a stolen refresh token gets invalid_grant and does not spend it", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const other = yield* setup()
      const tokens = yield* tokensFor(s)
      expectTokenError(yield* refreshGrant(other.as, other.client, secretPost(other), tokens.refresh_token ?? ""), 400, "invalid_grant")
      // The owner's token was not spent, so its next use is not taken for a reuse (the grant lives on).
      const refreshed = yield* refreshGrant(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      expect((yield* api(tokens.access_token)).status).toBe(200)
    }))

  it.effect("invalid_client with client_secret_basic carries WWW-Authenticate: Basic", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      const res = yield* refreshGrant(s.as, s.client, secretBasic(s, "bos_wrong"), tokens.refresh_token ?? "")
      expectTokenError(res, 401, "invalid_client")
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic\b/i)
      // The refresh token was not spent by the refused request.
      expect((yield* refresh(s.as, s.client, secretBasic(s), tokens.refresh_token ?? "")).access_token).toBeTruthy()
    }))

  // --- Signing keys -----------------------------------------------------------------------------

  it.effect("after a signing key rotation the JWKS lists both keys and a token signed before still works", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const before = yield* tokensFor(s)
      const oldKid = decodeProtectedHeader(before.access_token).kid
      yield* s.server.signingKeys.rotate
      const kids = (yield* publishedKeys).keys.map((k) => k.kid)
      const after = yield* tokensFor(s)
      const newKid = decodeProtectedHeader(after.access_token).kid
      expect(newKid).not.toBe(oldKid)
      expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]))
      expect((yield* api(before.access_token)).status).toBe(200)
      expect((yield* api(after.access_token)).status).toBe(200)
      yield* verifyAccessToken(s, before.access_token)
      yield* verifyAccessToken(s, after.access_token)
      // Once the old key's tokens have all expired, it is no longer published.
      yield* clock.advance("3601 seconds")
      expect((yield* publishedKeys).keys.map((k) => k.kid)).toEqual([newKid])
    }))

  // Last, as it moves the clock by two months.
  it.effect("a refresh token lives 30 days", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const tokens = yield* tokensFor(s)
      yield* clock.advance("29 days")
      const refreshed = yield* refresh(s.as, s.client, secretPost(s), tokens.refresh_token ?? "")
      expect((yield* api(refreshed.access_token)).status).toBe(200)
      yield* clock.advance("30 days")
      yield* clock.advance("1 minute")
      expectTokenError(yield* refreshGrant(s.as, s.client, secretPost(s), refreshed.refresh_token ?? ""), 400, "invalid_grant")
    }))
})
