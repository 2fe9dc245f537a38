/**
 * The authorization request (RFC 6749 4.1.1, 4.1.2.1; RFC 7636; RFC 9700), as decisions: what the
 * authorize endpoint answers to a request, before any sign-in or consent. The server looks the client
 * up and draws the page or the redirect; the order of the checks is the contract's:
 *
 * 1. no or a repeated `client_id`, or an unknown or disabled client: an error page (never a redirect);
 * 2. no, a repeated or an unregistered `redirect_uri`: an error page (we do not send the user there);
 * 3. then every error is a redirect to that URI with `error`, `error_description` and `state`:
 *    a repeated parameter, `response_type` missing or not `code`, `state` missing or empty, PKCE
 *    (`code_challenge_method` S256, a 43-character `code_challenge`), then the scope.
 */
import { Result } from "effect"
import { checkChallengeMethod, isCodeChallenge } from "./Pkce.js"
import { redirectUriMatches } from "./RedirectUri.js"
import { parseScope, type RequestedScope } from "./Scopes.js"

/** The parameters of a request or form, every value of a name in order (`URLSearchParams` is one). */
export interface Params {
  readonly getAll: (name: string) => ReadonlyArray<string>
}

/** The first value of a parameter (what `URLSearchParams.get` gives), undefined when absent. */
export const firstOf = (params: Params, name: string): string | undefined => params.getAll(name)[0]

/** The parameters of an authorization request, carried through the sign-in and consent forms. */
export const AUTHORIZE_PARAMS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method"
] as const

/** What the authorize checks need of a client. */
export interface AuthorizeClient {
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<string>
  readonly disabledAt: Date | null
}

/** The error codes an authorization request is refused with by redirect (RFC 6749 4.1.2.1). */
export type AuthorizeErrorCode = "invalid_request" | "unsupported_response_type" | "invalid_scope" | "access_denied"

/**
 * A refused authorization request: a 400 page when the client or its redirect URI cannot be trusted,
 * else a redirect to the registered URI with the error (and the request's `state`, even empty).
 */
export type AuthorizeRefusal =
  | { readonly _tag: "Page"; readonly title: string; readonly message: string }
  | {
    readonly _tag: "Redirect"
    readonly redirectUri: string
    readonly error: AuthorizeErrorCode
    readonly description: string
    readonly state: string | undefined
  }

/** An authorization request that passed every check. */
export interface AuthorizeRequest<A extends AuthorizeClient> {
  readonly app: A
  readonly redirectUri: string
  readonly scope: RequestedScope
  readonly state: string
  readonly codeChallenge: string
  /** The request's parameters (first values), to carry through the sign-in and consent forms. */
  readonly hidden: { readonly [name: string]: string }
}

const page = (title: string, message: string): Result.Result<never, AuthorizeRefusal> =>
  Result.fail({ _tag: "Page", title, message })

const single = (params: Params, name: string) => params.getAll(name).length <= 1

/** Step 1: the client id to look up, or the page saying no app is named. */
export const authorizeClientId = (params: Params): Result.Result<string, AuthorizeRefusal> => {
  const clientId = firstOf(params, "client_id")
  return clientId === undefined || clientId === "" || !single(params, "client_id")
    ? page(
      "This app is not known",
      "The link that brought you here names no app, or an app that does not exist. Go back to the app and try again."
    )
    : Result.succeed(clientId)
}

/** Step 2: the whole request, with the client found under its id (undefined: none). */
export const decideAuthorize = <A extends AuthorizeClient>(
  params: Params,
  app: A | undefined
): Result.Result<AuthorizeRequest<A>, AuthorizeRefusal> => {
  const clientId = authorizeClientId(params)
  if (Result.isFailure(clientId)) return Result.fail(clientId.failure)
  if (app === undefined || app.disabledAt !== null) {
    return page("This app is not known", "The app that sent you here does not exist or has been disabled.")
  }
  const redirectUri = firstOf(params, "redirect_uri")
  if (redirectUri === undefined || !single(params, "redirect_uri") || !redirectUriMatches(app.redirectUris, redirectUri)) {
    return page(
      "The app's address is not right",
      `The address that ${app.name} asked to return to is not one it registered, so we will not send you there.`
    )
  }
  const state = firstOf(params, "state")
  const fail = (error: AuthorizeErrorCode, description: string): Result.Result<never, AuthorizeRefusal> =>
    Result.fail({ _tag: "Redirect", redirectUri, error, description, state })
  for (const name of AUTHORIZE_PARAMS) {
    if (!single(params, name)) return fail("invalid_request", `The parameter ${name} is repeated`)
  }
  const responseType = firstOf(params, "response_type")
  if (responseType === undefined) return fail("invalid_request", "response_type is required")
  if (responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported")
  if (state === undefined || state === "") return fail("invalid_request", "state is required")
  const method = checkChallengeMethod(firstOf(params, "code_challenge_method"))
  if (Result.isFailure(method)) return fail("invalid_request", method.failure)
  const challenge = firstOf(params, "code_challenge")
  if (challenge === undefined || !isCodeChallenge(challenge)) {
    return fail("invalid_request", "code_challenge is required: the base64url SHA-256 of the code verifier (43 characters)")
  }
  const scope = parseScope(firstOf(params, "scope"), app.scopes)
  if (Result.isFailure(scope)) return fail("invalid_scope", scope.failure)
  const hidden: Record<string, string> = {}
  for (const name of AUTHORIZE_PARAMS) {
    const value = firstOf(params, name)
    if (value !== undefined) hidden[name] = value
  }
  return Result.succeed({ app, redirectUri, scope: scope.success, state, codeChallenge: challenge, hidden })
}

/** A consent refusal: the user denied (a redirect with access_denied), or the form is not right (a 400 page). */
export type ConsentRefusal =
  | { readonly _tag: "Denied" }
  | { readonly _tag: "Page"; readonly title: string; readonly message: string }

/** The consent form's `decision`: approve goes on, deny redirects with access_denied, anything else is a 400 page. */
export const decideConsent = (decision: string | undefined): Result.Result<"approve", ConsentRefusal> =>
  decision === "deny"
    ? Result.fail({ _tag: "Denied" })
    : decision === "approve"
    ? Result.succeed("approve")
    : Result.fail({ _tag: "Page", title: "Choose Allow or Cancel", message: "The form did not say whether you allow the app." })

/**
 * The organization an approval is for: the form's `organizationId`, which must be one of the user's;
 * when the form names none, the user's only organization (with several, it must be named).
 */
export const chooseOrganization = <O extends { readonly id: string }>(
  chosen: string | undefined,
  organizations: ReadonlyArray<O>
): Result.Result<O, ConsentRefusal> => {
  const id = chosen ?? (organizations.length === 1 ? organizations[0].id : "")
  const organization = organizations.find((org) => org.id === id)
  return organization === undefined
    ? Result.fail({ _tag: "Page", title: "Choose an organization", message: "Choose which of your organizations the app may act on." })
    : Result.succeed(organization)
}
