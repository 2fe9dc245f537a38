import { expect } from "@effect/vitest"
import { TestServer, type Organization, type TestServerShape } from "@bizops/testkit"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as oauth from "oauth4webapi"
import { authorizationUrl, Browser, discover, exchangeCode, formOf, type Page } from "./oauthClient.js"

/** The whole authorization-code flow as a user and an app go through it, for tests that need tokens. */

export const SCOPE = "read:clients write:clients offline_access"
export const REDIRECT_URI = "https://app.example.com/callback"
export const PASSWORD = "correct horse battery staple"

// --- Fixtures ------------------------------------------------------------------------------------

/** An organization, a user of it, an app registered by the operator, and the discovered server. */
export interface Setup {
  readonly server: TestServerShape
  readonly as: oauth.AuthorizationServer
  readonly org: Organization
  readonly user: { readonly userId: string; readonly email: string; readonly password: string }
  readonly app: { readonly clientId: string; readonly clientSecret: string }
  readonly client: oauth.Client
  readonly redirectUri: string
  readonly scope: string
}

export const setup = (options: { readonly appScopes?: ReadonlyArray<string>; readonly scope?: string; readonly redirectUris?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const org = yield* server.organization()
    const email = `user-${randomUUID()}@example.com`
    const { userId } = yield* Effect.orDie(server.oauth.createUser({ email, password: PASSWORD, organizationId: org.organizationId }))
    const redirectUris = options.redirectUris ?? [REDIRECT_URI]
    const scope = options.scope ?? SCOPE
    const app = yield* Effect.orDie(server.oauth.createApp({
      name: "Ledger Sync",
      redirectUris,
      scopes: options.appScopes ?? scope.split(" "),
      description: "Keeps the books in step",
      homepageUrl: "https://app.example.com"
    }))
    const as = yield* discover(server.baseUrl)
    const setup: Setup = {
      server,
      as,
      org,
      user: { userId, email, password: PASSWORD },
      app,
      client: { client_id: app.clientId },
      redirectUri: redirectUris[0],
      scope
    }
    return setup
  })

export const secretPost = (s: Setup, secret = s.app.clientSecret) => oauth.ClientSecretPost(secret)
export const secretBasic = (s: Setup, secret = s.app.clientSecret) => oauth.ClientSecretBasic(secret)

/** The authorization URL the app sends the browser to (PKCE S256, a state), with parameters changed or left out. */
export const start = (s: Setup, params: Record<string, string | undefined> = {}) =>
  authorizationUrl(s.as, { clientId: s.app.clientId, redirectUri: params.redirect_uri ?? s.redirectUri, scope: s.scope }, params)

/** Where a redirect goes (failing the test when the answer is not a redirect). */
export const locationOf = (page: Page): URL => {
  expect(page.status, page.html).toBe(303)
  expect(page.location).not.toBeNull()
  return new URL(page.location ?? "")
}

/** Opens the authorization URL, fills in the sign-in form and follows the redirect: the consent page. */
export const signIn = (browser: Browser, url: string, user: { readonly email: string; readonly password: string }) =>
  Effect.gen(function*() {
    const signInPage = yield* browser.open(url)
    expect(signInPage.status, signInPage.html).toBe(200)
    const signedIn = yield* browser.submit(formOf(signInPage), { email: user.email, password: user.password })
    expect(locationOf(signedIn).pathname).toBe("/api/auth/oauth2/authorize")
    const consent = yield* browser.follow(signedIn)
    expect(consent.status, consent.html).toBe(200)
    return consent
  })

/** Presses Allow on the consent page: the redirect back to the app. */
export const approve = (browser: Browser, consent: Page, fields: Record<string, string> = {}) =>
  Effect.map(browser.submit(formOf(consent), { ...fields, decision: "approve" }), locationOf)

/** The browser's part of the flow, then the app's check of the callback (state and iss) by oauth4webapi. */
export const authorize = (s: Setup, params: Record<string, string | undefined> = {}) =>
  Effect.gen(function*() {
    const authorization = yield* start(s, params)
    const browser = new Browser(s.server.baseUrl)
    const redirect = yield* approve(browser, yield* signIn(browser, authorization.url, s.user))
    expect(`${redirect.origin}${redirect.pathname}`).toBe(authorization.redirectUri)
    const callback = oauth.validateAuthResponse(s.as, s.client, redirect, authorization.state)
    return { ...authorization, callback, browser }
  })

/** The code exchanged for tokens (client_secret_post unless told). */
export const tokensFor = (s: Setup, auth: oauth.ClientAuth = secretPost(s)) =>
  Effect.gen(function*() {
    const a = yield* authorize(s)
    return yield* exchangeCode(s.as, s.client, auth, a.callback, a.redirectUri, a.codeVerifier)
  })

