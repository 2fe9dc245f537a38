/**
 * The client side of the OAuth tests: a browser (fetch, a cookie jar, forms read from the HTML,
 * redirects followed by hand) and the app (oauth4webapi, the library under which the flow must work).
 * Only oauth.test.ts imports this.
 */
import { Effect } from "effect"
import * as oauth from "oauth4webapi"

/** http://127.0.0.1 is the test server's address: oauth4webapi refuses http unless told. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const

// --- The browser ---------------------------------------------------------------------------------

/** A response as the browser sees it (redirects are not followed). */
export interface Page {
  /** The URL this page was fetched from. */
  readonly url: string
  readonly status: number
  readonly headers: Headers
  /** The Location header, resolved against the page's URL; null when there is none. */
  readonly location: string | null
  readonly html: string
}

/** A form of a page: where it posts, its hidden fields and its radio buttons. */
export interface Form {
  readonly action: string
  readonly hidden: ReadonlyArray<readonly [string, string]>
  readonly radios: ReadonlyArray<{ readonly name: string; readonly value: string; readonly checked: boolean; readonly required: boolean }>
  /** The submit buttons' name=value pairs. */
  readonly buttons: ReadonlyArray<readonly [string, string]>
}

const unescapeHtml = (s: string): string =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) =>
    e === "amp" ? "&" : e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? "\"" : "'")

/** The attributes of one start tag (`<input type="hidden" name="x" value="y">`). */
const attributesOf = (tag: string): ReadonlyMap<string, string> => {
  const attributes = new Map<string, string>()
  for (const m of tag.replace(/^<[a-z]+/i, "").matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)) {
    attributes.set(m[1].toLowerCase(), unescapeHtml(m[2] ?? ""))
  }
  return attributes
}

const startTags = (html: string, name: string): ReadonlyArray<ReadonlyMap<string, string>> =>
  Array.from(html.matchAll(new RegExp(`<${name}\\b[^>]*>`, "gi")), (m) => attributesOf(m[0]))

/** The one form of a page, read as a browser would. Throws when the page has no form or several. */
export const formOf = (page: Page): Form => {
  const forms = startTags(page.html, "form")
  if (forms.length !== 1) throw new Error(`expected one form on the page (status ${page.status}), found ${forms.length}:\n${page.html}`)
  if ((forms[0].get("method") ?? "get").toLowerCase() !== "post") throw new Error("the form does not POST")
  const inputs = startTags(page.html, "input")
  return {
    action: new URL(forms[0].get("action") ?? "", page.url).toString(),
    hidden: inputs.filter((i) => i.get("type") === "hidden").map((i) => [i.get("name") ?? "", i.get("value") ?? ""] as const),
    radios: inputs.filter((i) => i.get("type") === "radio").map((i) => ({
      name: i.get("name") ?? "",
      value: i.get("value") ?? "",
      checked: i.has("checked"),
      required: i.has("required")
    })),
    buttons: startTags(page.html, "button")
      .filter((b) => (b.get("type") ?? "submit") === "submit" && b.has("name"))
      .map((b) => [b.get("name") ?? "", b.get("value") ?? ""] as const)
  }
}

/** The value of a hidden field of the form (undefined when it has none of that name). */
export const hiddenField = (form: Form, name: string): string | undefined => form.hidden.find(([n]) => n === name)?.[1]

interface Cookie {
  readonly value: string
  readonly path: string
  readonly httpOnly: boolean
  readonly sameSite: string | undefined
}

/**
 * A browser without JavaScript: keeps the cookies the server sets (by name and path), sends them back
 * to the same origin, submits forms as application/x-www-form-urlencoded and never follows a
 * redirect by itself.
 */
export class Browser {
  private readonly jar = new Map<string, Cookie>()

  constructor(readonly origin: string) {}

  /** A cookie the browser holds, with its attributes. */
  cookie(name: string): Cookie | undefined {
    return this.jar.get(name)
  }

  /** Drops a cookie (as if it had expired or been cleared). */
  forget(name: string): void {
    this.jar.delete(name)
  }

  private remember(setCookies: ReadonlyArray<string>): void {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(";").map((s) => s.trim())
      const eq = pair.indexOf("=")
      const name = pair.slice(0, eq)
      const value = pair.slice(eq + 1)
      const attribute = (wanted: string) => {
        const found = attributes.find((a) => a.toLowerCase().split("=")[0] === wanted)
        return found === undefined ? undefined : found.slice(found.indexOf("=") + 1)
      }
      const maxAge = attribute("max-age")
      const expires = attribute("expires")
      const expired = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) <= Date.now())
      if (expired) {
        this.jar.delete(name)
        continue
      }
      this.jar.set(name, {
        value,
        path: attribute("path") ?? "/",
        httpOnly: attributes.some((a) => a.toLowerCase() === "httponly"),
        sameSite: attribute("samesite")
      })
    }
  }

  private cookieHeader(url: URL): string | undefined {
    if (url.origin !== this.origin) return undefined
    const sent = Array.from(this.jar).filter(([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`))
    return sent.length === 0 ? undefined : sent.map(([name, c]) => `${name}=${c.value}`).join("; ")
  }

  /** One request, as the browser makes it: its cookies go along, the answer's cookies are kept. */
  request(method: "GET" | "POST", url: string, form?: URLSearchParams): Effect.Effect<Page> {
    return Effect.promise(async () => {
      const target = new URL(url, this.origin)
      const headers: Record<string, string> = { accept: "text/html" }
      const cookie = this.cookieHeader(target)
      if (cookie !== undefined) headers["cookie"] = cookie
      if (form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
      const response = await fetch(target, { method, headers, redirect: "manual", ...(form === undefined ? {} : { body: form.toString() }) })
      this.remember(response.headers.getSetCookie())
      const location = response.headers.get("location")
      return {
        url: target.toString(),
        status: response.status,
        headers: response.headers,
        location: location === null ? null : new URL(location, target).toString(),
        html: await response.text()
      }
    })
  }

  open(url: string): Effect.Effect<Page> {
    return this.request("GET", url)
  }

  /**
   * Submits a form: its hidden fields, then `values` (the fields a person fills in and the button
   * pressed). `without` leaves hidden fields out; `replace` changes hidden fields' values.
   */
  submit(form: Form, values: Record<string, string>, options: { readonly without?: ReadonlyArray<string>; readonly replace?: Record<string, string> } = {}): Effect.Effect<Page> {
    const body = new URLSearchParams()
    for (const [name, value] of form.hidden) {
      if (options.without?.includes(name)) continue
      body.append(name, options.replace?.[name] ?? value)
    }
    for (const [name, value] of Object.entries(values)) body.append(name, value)
    return this.request("POST", form.action, body)
  }

  /** Follows a 303 to this server (GET), as a browser does; a redirect elsewhere is left to the caller. */
  follow(page: Page): Effect.Effect<Page> {
    if (page.status !== 303 || page.location === null) {
      return Effect.die(new Error(`expected a 303 redirect, got ${page.status}:\n${page.html}`))
    }
    if (new URL(page.location).origin !== this.origin) return Effect.die(new Error(`the redirect leaves the server: ${page.location}`))
    return this.open(page.location)
  }
}

// --- The app (oauth4webapi) -----------------------------------------------------------------------

/** RFC 8414 discovery from the issuer. */
export const discover = (issuer: string): Effect.Effect<oauth.AuthorizationServer> =>
  Effect.promise(async () => {
    const url = new URL(issuer)
    return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: "oauth2", ...INSECURE }))
  })

/** What an app keeps between sending the user away and the callback. */
export interface Authorization {
  /** The authorization URL the browser is sent to. */
  readonly url: string
  readonly state: string
  readonly codeVerifier: string
  readonly redirectUri: string
}

/**
 * An authorization URL as an app builds it: PKCE S256 with a fresh verifier, a fresh state. `params`
 * overrides or (with undefined) removes parameters, to build the broken requests.
 */
export const authorizationUrl = (
  as: oauth.AuthorizationServer,
  request: { readonly clientId: string; readonly redirectUri: string; readonly scope: string },
  params: Record<string, string | undefined> = {}
): Effect.Effect<Authorization> =>
  Effect.promise(async () => {
    const codeVerifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint ?? "")
    const all: Record<string, string | undefined> = {
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      response_type: "code",
      scope: request.scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      ...params
    }
    for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value)
    return { url: url.toString(), state, codeVerifier, redirectUri: request.redirectUri }
  })

/** A response of the token or revocation endpoint, read raw (to check errors and headers). */
export interface EndpointResponse {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly body: any
}

const readRaw = async (response: Response): Promise<EndpointResponse> => {
  const text = await response.text()
  let body: unknown = undefined
  try {
    body = text.length === 0 ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, body }
}

/** The token request for a code (oauth4webapi builds it), answered raw. */
export const codeGrant = (
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  callback: URLSearchParams,
  redirectUri: string,
  codeVerifier: string
): Effect.Effect<EndpointResponse> =>
  Effect.promise(async () => readRaw(await oauth.authorizationCodeGrantRequest(as, client, auth, callback, redirectUri, codeVerifier, INSECURE)))

/** The token request for a code, processed by oauth4webapi (which throws on any error). */
export const exchangeCode = (
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  callback: URLSearchParams,
  redirectUri: string,
  codeVerifier: string
): Effect.Effect<oauth.TokenEndpointResponse> =>
  Effect.promise(async () =>
    oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, callback, redirectUri, codeVerifier, INSECURE)
    ))

/** A refresh request (with extra parameters such as a narrower `scope`), answered raw. */
export const refreshGrant = (
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  refreshToken: string,
  parameters: Record<string, string> = {}
): Effect.Effect<EndpointResponse> =>
  Effect.promise(async () => readRaw(await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, { additionalParameters: parameters, ...INSECURE })))

/** A refresh request, processed by oauth4webapi. */
export const refresh = (
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  refreshToken: string,
  parameters: Record<string, string> = {}
): Effect.Effect<oauth.TokenEndpointResponse> =>
  Effect.promise(async () =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, { additionalParameters: parameters, ...INSECURE })
    ))

/** RFC 7009 revocation, answered raw. */
export const revocation = (as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth, token: string): Effect.Effect<EndpointResponse> =>
  Effect.promise(async () => readRaw(await oauth.revocationRequest(as, client, auth, token, INSECURE)))

/** RFC 7009 revocation, processed by oauth4webapi (it throws unless 200). */
export const revoke = (as: oauth.AuthorizationServer, client: oauth.Client, auth: oauth.ClientAuth, token: string): Effect.Effect<void> =>
  Effect.promise(async () => oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token, INSECURE)))

/** A raw POST to an endpoint (for requests oauth4webapi would never make). */
export const postRaw = (url: string, contentType: string, body: string, headers: Record<string, string> = {}): Effect.Effect<EndpointResponse> =>
  Effect.promise(async () => readRaw(await fetch(url, { method: "POST", headers: { "content-type": contentType, ...headers }, body })))

/** A raw POST of form fields to an endpoint. */
export const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Effect.Effect<EndpointResponse> =>
  postRaw(url, "application/x-www-form-urlencoded", new URLSearchParams(fields).toString(), headers)
