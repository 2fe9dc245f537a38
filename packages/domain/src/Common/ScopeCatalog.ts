/**
 * Every scope in both of its spellings, so that an integrator can find the one a credential needs.
 *
 * An API key holds `<resource>:<read|write>` (`clients:read`, section 5 of the specification); an OAuth app
 * asks for `<read|write>:<resource>` (`read:clients`) plus the OAuth-only `offline_access` and `openid`.
 * The two spellings name the same permission, and the wrong one is the mistake integrators make most: the
 * refusal of an unknown scope therefore says which spelling was expected, what the token means in the other
 * spelling, and which valid scope it is closest to.
 */
import { Result } from "effect"
import { OAUTH_SCOPES, OFFLINE_ACCESS, OPENID } from "../OAuth/Scopes.js"
import { isKnownScope, RESOURCES, type Scope } from "./Auth.js"

/** A resource of section 4: the path segment that scopes are named after. */
export type ScopeResource = (typeof RESOURCES)[number]

export type ScopeAccess = "read" | "write"

/** The OAuth spelling of a resource scope: `read:clients`. */
export type OAuthResourceScope = `${ScopeAccess}:${ScopeResource}`

/** One permission in both spellings. */
export interface ScopeEntry {
  readonly resource: ScopeResource
  readonly access: ScopeAccess
  /** What an API key holds: `clients:read`. */
  readonly apiKey: Scope
  /** What an OAuth app asks for: `read:clients`. */
  readonly oauth: OAuthResourceScope
}

const ACCESSES: ReadonlyArray<ScopeAccess> = ["read", "write"]

/**
 * Every resource scope, in the order of section 4 and read before write: the same order as `ALL_SCOPES`.
 * A read-only resource has no write entry, a write-only one no read entry (`isKnownScope` knows which).
 */
export const SCOPE_CATALOG: ReadonlyArray<ScopeEntry> = RESOURCES.flatMap((resource) =>
  ACCESSES.flatMap((access): Array<ScopeEntry> => {
    const apiKey = `${resource}:${access}` as const
    return isKnownScope(apiKey) ? [{ resource, access, apiKey, oauth: `${access}:${resource}` }] : []
  })
)

/** OAuth scopes that grant no API scope: `offline_access` (a refresh token) and `openid` (accepted, grants nothing). */
export const OAUTH_ONLY_SCOPES: ReadonlyArray<string> = [OFFLINE_ACCESS, OPENID]

const byApiKey: ReadonlyMap<string, ScopeEntry> = new Map(SCOPE_CATALOG.map((entry) => [entry.apiKey, entry]))
const byOAuth: ReadonlyMap<string, ScopeEntry> = new Map(SCOPE_CATALOG.map((entry) => [entry.oauth, entry]))

/** The OAuth spelling of an API-key scope: "clients:read" → "read:clients"; undefined for anything else. */
export const apiKeyToOAuth = (apiKeyScope: string): OAuthResourceScope | undefined => byApiKey.get(apiKeyScope)?.oauth

/** The API-key spelling of an OAuth resource scope: "read:clients" → "clients:read"; undefined for anything else. */
export const oauthToApiKey = (oauthScope: string): Scope | undefined => byOAuth.get(oauthScope)?.apiKey

/** Which spelling a command takes: an API key's scopes, or an OAuth app's. */
export type ScopeSpelling = "apiKey" | "oauth"

/** The scopes valid in one spelling: for OAuth, the resource scopes and then the OAuth-only ones. */
export const scopesIn = (spelling: ScopeSpelling): ReadonlyArray<string> =>
  spelling === "apiKey"
    ? SCOPE_CATALOG.map((entry) => entry.apiKey)
    : [...SCOPE_CATALOG.map((entry) => entry.oauth), ...OAUTH_ONLY_SCOPES]

const validIn: Record<ScopeSpelling, ReadonlySet<string>> = {
  apiKey: new Set(scopesIn("apiKey")),
  oauth: new Set(OAUTH_SCOPES)
}

export const isScopeIn = (spelling: ScopeSpelling, scope: string): boolean => validIn[spelling].has(scope)

/** How each spelling is written, for messages. */
export const SPELLING_RULE: Record<ScopeSpelling, string> = {
  apiKey: "API keys take scopes spelled <resource>:read or <resource>:write",
  oauth: `OAuth apps take scopes spelled read:<resource> or write:<resource>, plus ${OAUTH_ONLY_SCOPES.join(" and ")}`
}

/** The Levenshtein distance (insertions, deletions and substitutions), over two rows. */
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** Beyond this many edits a suggestion is more likely to mislead than to help (effect/cli uses the same bound). */
const MAX_SUGGESTION_DISTANCE = 2

/**
 * The valid scopes of `spelling` closest to `token`, nearest first and only the nearest: a token is
 * compared, case-insensitively, with both spellings of each scope (a typo in the other spelling still
 * finds the scope), and the scope is suggested in the spelling asked for.
 */
export const closestScopes = (spelling: ScopeSpelling, token: string): ReadonlyArray<string> => {
  const lower = token.toLowerCase()
  const candidates: Array<readonly [string, number]> = [
    ...SCOPE_CATALOG.map((entry) =>
      [entry[spelling], Math.min(editDistance(lower, entry.apiKey), editDistance(lower, entry.oauth))] as const
    ),
    ...(spelling === "oauth" ? OAUTH_ONLY_SCOPES.map((s) => [s, editDistance(lower, s)] as const) : [])
  ]
  const near = candidates.filter(([, d]) => d <= MAX_SUGGESTION_DISTANCE)
  const best = Math.min(...near.map(([, d]) => d))
  return near.filter(([, d]) => d === best).map(([s]) => s)
}

/** `<resource>` and `<access>` of a token in either spelling, whatever its case, when it names both. */
const resourceAndAccess = (token: string): { readonly resource: ScopeResource; readonly access: ScopeAccess } | undefined => {
  const parts = token.toLowerCase().split(":")
  if (parts.length !== 2) return undefined
  const resource = RESOURCES.find((r) => parts.includes(r))
  const access = ACCESSES.find((a) => parts.includes(a))
  return resource !== undefined && access !== undefined ? { resource, access } : undefined
}

const orList = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`

/**
 * What a token that is not a scope of `spelling` most likely meant, as a sentence; undefined when nothing
 * comes close. In order: the same scope in the other spelling ("clients:read is an API-key scope; OAuth
 * apps use read:clients"), an OAuth-only scope given to an API key, an access that the resource lacks
 * (read-only and write-only resources), a resource without its access, then the nearest scopes.
 */
export const scopeHint = (spelling: ScopeSpelling, token: string): string | undefined => {
  if (spelling === "oauth") {
    const oauth = apiKeyToOAuth(token)
    if (oauth !== undefined) return `${token} is an API-key scope; OAuth apps use ${oauth}`
  } else {
    const apiKey = oauthToApiKey(token)
    if (apiKey !== undefined) return `${token} is an OAuth scope; API keys use ${apiKey}`
    if (OAUTH_ONLY_SCOPES.includes(token)) return `${token} is an OAuth-only scope; API keys have no such scope`
  }
  const named = resourceAndAccess(token)
  if (named !== undefined && !isKnownScope(`${named.resource}:${named.access}`)) {
    const has = SCOPE_CATALOG.filter((entry) => entry.resource === named.resource).map((entry) => entry[spelling])
    return `${named.resource} is ${named.access === "read" ? "write" : "read"}-only: it has ${orList(has)}, no ${named.access} scope`
  }
  const resource = RESOURCES.find((r) => r === token.toLowerCase())
  if (resource !== undefined) {
    const has = SCOPE_CATALOG.filter((entry) => entry.resource === resource).map((entry) => entry[spelling])
    return `${token} needs an access: ${orList(has)}`
  }
  const closest = closestScopes(spelling, token)
  return closest.length > 0 ? `${token}: did you mean ${orList(closest)}?` : undefined
}

/** Scopes refused: the unknown tokens, in the order given, and a message that explains them. */
export interface UnknownScopes {
  readonly unknown: ReadonlyArray<string>
  /**
   * "Unknown scopes: …", a hint per token that has one, the spelling expected, and every valid scope of
   * that spelling, so that the refusal alone is enough to correct the command.
   */
  readonly message: string
}

/** The requested scope tokens, checked against one spelling: the tokens, or every unknown one explained. */
export const checkScopes = (spelling: ScopeSpelling, tokens: ReadonlyArray<string>): Result.Result<ReadonlyArray<string>, UnknownScopes> => {
  const unknown = Array.from(new Set(tokens.filter((t) => !isScopeIn(spelling, t))))
  if (unknown.length === 0) return Result.succeed(tokens)
  const hints = unknown.flatMap((t) => {
    const hint = scopeHint(spelling, t)
    return hint === undefined ? [] : [hint.endsWith("?") ? hint : `${hint}.`]
  })
  const message = [
    `Unknown ${unknown.length === 1 ? "scope" : "scopes"}: ${unknown.join(", ")}.`,
    ...hints,
    `${SPELLING_RULE[spelling]}; the valid ones are: ${scopesIn(spelling).join(", ")}.`
  ].join(" ")
  return Result.fail({ unknown, message })
}
