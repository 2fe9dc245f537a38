import { Context } from "effect"
import { HttpApi, type HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { ForbiddenResponse, RateLimitedResponse, UnauthorizedResponse } from "./Errors.js"
import type { BusinessId, OrganizationId } from "./Values.js"

/** Who is calling: the organization comes only from the credential. */
export interface Principal {
  readonly organizationId: OrganizationId
  /** The organization's default business, for records created without one. */
  readonly businessId: BusinessId
  readonly scopes: ReadonlySet<string>
  /** The credential: an API key id, or an OAuth grant. Idempotency keys and rate limits are per credential. */
  readonly credentialId: string
  readonly kind: "api_key" | "oauth"
}

export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("@bizops/domain/CurrentPrincipal") {}

/**
 * API-key or OAuth authentication, then the scope check. A key is sent as `x-api-key: KEY` or
 * `Authorization: Bearer KEY`; a bearer value that is a JWT is an OAuth access token.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentPrincipal }>()("Authentication", {
  error: [UnauthorizedResponse, ForbiddenResponse, RateLimitedResponse],
  security: {
    apiKey: HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }),
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An API key (bok_…), or an OAuth 2.0 access token (a JWT from POST /api/auth/oauth2/token; discovery at /.well-known/oauth-authorization-server; scopes read:<resource> and write:<resource>)"
      )
    )
  }
}) {}

/** Every resource that has scopes, in the order of the specification's section 4. */
export const RESOURCES = [
  "clients",
  "contacts",
  "projects",
  "invoices",
  "contracts",
  "payments",
  "payouts",
  "time-entries",
  "milestones",
  "calendar-events",
  "transactions",
  "catalog-items",
  "webhooks",
  "sales",
  "forms",
  "form-submissions",
  "client-documents",
  "document-versions",
  "inquiries",
  "timeline-items",
  "event-days"
] as const

const READ_ONLY: ReadonlyArray<string> = ["payouts", "sales", "forms", "form-submissions", "client-documents", "document-versions"]
const WRITE_ONLY: ReadonlyArray<string> = ["inquiries"]

/** A scope as `<resource>:read` or `<resource>:write`, `<resource>` being a path segment of section 4. */
export type Scope = `${(typeof RESOURCES)[number]}:${"read" | "write"}`

/** All scopes: `<resource>:read` and `<resource>:write`, less the ones a read-only or write-only resource lacks. */
export const ALL_SCOPES: ReadonlyArray<Scope> = RESOURCES.flatMap((r): Array<Scope> => [
  ...(WRITE_ONLY.includes(r) ? [] : [`${r}:read` as const]),
  ...(READ_ONLY.includes(r) ? [] : [`${r}:write` as const])
])

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES)

export const isKnownScope = (scope: string): scope is Scope => KNOWN_SCOPES.has(scope)

/**
 * The scope an endpoint needs, declared on the endpoint itself next to its definition:
 * `HttpApiEndpoint.get("list", "/clients").annotate(RequiredScope, "clients:read")`. The server checks it
 * against the route that matched; an authenticated endpoint without one is refused (deny by default).
 */
export class RequiredScope extends Context.Service<RequiredScope, Scope>()("@bizops/domain/RequiredScope") {}

/**
 * The scope check, given the matched endpoint's declared scope (none when it declares none) and the
 * credential's scopes: the missing scope's refusal message, or undefined when the request may go on.
 */
export const scopeRefusal = (declared: Scope | undefined, granted: ReadonlySet<string>): string | undefined =>
  declared === undefined
    ? "This route declares no scope, so no credential may call it"
    : granted.has(declared)
    ? undefined
    : `This credential lacks the scope ${declared}`

/** An endpoint as declared: its method, its full path (with `:param` segments) and its declared scope. */
export interface DeclaredEndpoint {
  readonly method: string
  readonly path: string
  readonly scope: Scope | undefined
}

/** Every endpoint of an HttpApi with the scope it declares (undefined where it declares none). */
export const declaredEndpoints = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): ReadonlyArray<DeclaredEndpoint> => {
  const endpoints: Array<DeclaredEndpoint> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) =>
      endpoints.push({
        method: endpoint.method,
        path: endpoint.path,
        scope: Context.getOrUndefined(endpoint.annotations, RequiredScope)
      })
  })
  return endpoints
}
