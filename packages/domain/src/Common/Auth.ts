import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
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

export class CurrentPrincipal extends Context.Tag("@bizops/domain/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/**
 * API-key or OAuth authentication, then the scope check. A key is sent as `x-api-key: KEY` or
 * `Authorization: Bearer KEY`; a bearer value that is a JWT is an OAuth access token.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(UnauthorizedResponse, ForbiddenResponse, RateLimitedResponse),
  provides: CurrentPrincipal,
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

/** The scope a request needs: `<segment>:read` for GET, `<segment>:write` for writes (the contract). */
export const requiredScope = (method: string, pathname: string): string | undefined => {
  const match = /^\/api\/v1\/([a-z][a-z-]*)/.exec(pathname)
  if (match === null) return undefined
  const access = method === "GET" || method === "HEAD" ? "read" : "write"
  // The event catalog belongs to the webhooks resource.
  const resource = match[1] === "webhook-events" ? "webhooks" : match[1]
  return `${resource}:${access}`
}

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

/** All scopes: `<resource>:read` and `<resource>:write`, less the ones a read-only or write-only resource lacks. */
export const ALL_SCOPES: ReadonlyArray<string> = RESOURCES.flatMap((r) => [
  ...(WRITE_ONLY.includes(r) ? [] : [`${r}:read`]),
  ...(READ_ONLY.includes(r) ? [] : [`${r}:write`])
])

export const isKnownScope = (scope: string): boolean => ALL_SCOPES.includes(scope)
