import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { OAUTH_SCOPES, toApiScope, toOAuthScope } from "../OAuth/Scopes.js"
import { ALL_SCOPES, isKnownScope, RESOURCES } from "./Auth.js"
import {
  apiKeyToOAuth,
  checkScopes,
  closestScopes,
  isScopeIn,
  OAUTH_ONLY_SCOPES,
  oauthToApiKey,
  SCOPE_CATALOG,
  type ScopeSpelling,
  scopeHint,
  scopesIn
} from "./ScopeCatalog.js"

/** "clients:read" ⇄ "read:clients", written out here rather than taken from the module under test. */
const swap = (s: string): string => {
  const i = s.indexOf(":")
  return `${s.slice(i + 1)}:${s.slice(0, i)}`
}

const spelling = fc.constantFrom<ScopeSpelling>("apiKey", "oauth")
const other = (s: ScopeSpelling): ScopeSpelling => (s === "apiKey" ? "oauth" : "apiKey")
const apiKeyScope = fc.constantFrom(...ALL_SCOPES)
const oauthScope = fc.constantFrom(...OAUTH_SCOPES)
/** Any token: valid in one spelling or the other, near one, or anything at all. */
const token = fc.oneof(
  apiKeyScope,
  oauthScope,
  fc.constantFrom("sales:write", "write:sales", "read:inquiries", "inquiries:read", "clients", "Clients:Read", "offline-access", "client:read", "clients:bogus", "read:clients:read", ""),
  fc.string(),
  fc.string({ unit: "binary" })
)
/** One edit of a string: a character substituted, inserted or deleted, the character from the scopes' alphabet or any. */
const oneEdit = (s: string) =>
  fc.tuple(fc.constantFrom("substitute", "insert", "delete"), fc.nat(s.length), fc.oneof(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz-:_"), fc.string({ minLength: 1, maxLength: 1 }))).map(
    ([kind, at, c]) => {
      const i = Math.min(at, kind === "insert" ? s.length : s.length - 1)
      return kind === "insert" ? s.slice(0, i) + c + s.slice(i) : s.slice(0, i) + (kind === "substitute" ? c : "") + s.slice(i + 1)
    }
  )

describe("the scope catalog", () => {
  it("lists each API-key scope once, in the order of ALL_SCOPES, with its OAuth spelling", () => {
    expect(SCOPE_CATALOG.map((e) => e.apiKey)).toEqual([...ALL_SCOPES])
    expect(new Set(SCOPE_CATALOG.map((e) => e.apiKey)).size).toBe(SCOPE_CATALOG.length)
    expect(new Set(SCOPE_CATALOG.map((e) => e.oauth)).size).toBe(SCOPE_CATALOG.length)
    for (const e of SCOPE_CATALOG) {
      expect(e.apiKey).toBe(`${e.resource}:${e.access}`)
      expect(e.oauth).toBe(`${e.access}:${e.resource}`)
    }
    expect(SCOPE_CATALOG[0]).toEqual({ resource: "clients", access: "read", apiKey: "clients:read", oauth: "read:clients" })
  })

  it("covers every resource of section 4, read-only and write-only ones with one entry", () => {
    expect(Array.from(new Set(SCOPE_CATALOG.map((e) => e.resource)))).toEqual([...RESOURCES])
    const accesses = (r: string) => SCOPE_CATALOG.filter((e) => e.resource === r).map((e) => e.access)
    expect(accesses("clients")).toEqual(["read", "write"])
    expect(accesses("sales")).toEqual(["read"])
    expect(accesses("inquiries")).toEqual(["write"])
  })

  it("with the OAuth-only scopes, the OAuth spellings are exactly the supported OAuth scopes", () => {
    expect(OAUTH_ONLY_SCOPES).toEqual(["offline_access", "openid"])
    expect([...scopesIn("oauth")].sort()).toEqual([...OAUTH_SCOPES].sort())
    expect(new Set(scopesIn("oauth")).size).toBe(scopesIn("oauth").length)
    expect(scopesIn("apiKey")).toEqual([...ALL_SCOPES])
    for (const s of OAUTH_ONLY_SCOPES) expect(toApiScope(s)).toBeUndefined()
  })
})

describe("converting between the spellings", () => {
  prop("every API-key scope converts to an OAuth scope and back to itself", [apiKeyScope], ([s]) => {
    const oauth = apiKeyToOAuth(s)
    expect(oauth).toBe(swap(s))
    expect(oauth).toBe(toOAuthScope(s))
    expect(isScopeIn("oauth", oauth ?? "")).toBe(true)
    expect(oauthToApiKey(oauth ?? "")).toBe(s)
  })

  prop("every OAuth resource scope converts to an API-key scope and back to itself", [oauthScope], ([s]) => {
    const apiKey = oauthToApiKey(s)
    expect(apiKey).toBe(toApiScope(s))
    if (apiKey === undefined) expect(OAUTH_ONLY_SCOPES).toContain(s)
    else expect(apiKeyToOAuth(apiKey)).toBe(s)
  })

  prop("a conversion is defined exactly for the valid scopes of its spelling", [token], ([s]) => {
    expect(apiKeyToOAuth(s) !== undefined).toBe(isKnownScope(s))
    expect(oauthToApiKey(s) !== undefined).toBe(isScopeIn("oauth", s) && !OAUTH_ONLY_SCOPES.includes(s))
  })

  prop("isScopeIn is membership in scopesIn", [spelling, token], ([sp, s]) => {
    expect(isScopeIn(sp, s)).toBe(scopesIn(sp).includes(s))
  })
})

describe("checkScopes", () => {
  prop("accepts exactly the tokens of its spelling, and a refusal names every unknown token once and lists every valid scope", [spelling, fc.array(token, { minLength: 1, maxLength: 6 })], ([sp, tokens]) => {
    const result = checkScopes(sp, tokens)
    const unknown = tokens.filter((t) => !scopesIn(sp).includes(t))
    if (unknown.length === 0) {
      expect(result).toEqual(Result.succeed(tokens))
      return
    }
    expect(Result.isFailure(result)).toBe(true)
    Result.mapError(result, ({ unknown: named, message }) => {
      expect(named).toEqual(Array.from(new Set(unknown)))
      for (const t of unknown) expect(message).toContain(t)
      expect(message).toContain(`the valid ones are: ${scopesIn(sp).join(", ")}.`)
      expect(message).toContain(sp === "apiKey" ? "<resource>:read" : "read:<resource>")
    })
  })

  prop("a scope of the other spelling is refused with its equivalent", [spelling, fc.constantFrom(...SCOPE_CATALOG)], ([sp, entry]) => {
    const given = entry[other(sp)]
    const result = checkScopes(sp, [given])
    expect(Result.isFailure(result)).toBe(true)
    const expected = sp === "oauth"
      ? `${entry.apiKey} is an API-key scope; OAuth apps use ${entry.oauth}.`
      : `${entry.oauth} is an OAuth scope; API keys use ${entry.apiKey}.`
    Result.mapError(result, ({ message }) => expect(message).toContain(expected))
  })

  it("examples", () => {
    const refused = (sp: ScopeSpelling, tokens: ReadonlyArray<string>) => {
      const result = checkScopes(sp, tokens)
      return Result.isFailure(result) ? result.failure.message.split(/ (?:API keys|OAuth apps) take /)[0] : "accepted"
    }
    expect(refused("apiKey", ["clients:read", "clients:write"])).toBe("accepted")
    expect(refused("oauth", ["read:clients", "offline_access", "openid"])).toBe("accepted")
    expect(refused("apiKey", ["clients:bogus"])).toBe("Unknown scope: clients:bogus.")
    expect(refused("oauth", ["clients:read"])).toBe("Unknown scope: clients:read. clients:read is an API-key scope; OAuth apps use read:clients.")
    expect(refused("apiKey", ["read:clients", "offline_access"])).toBe(
      "Unknown scopes: read:clients, offline_access. read:clients is an OAuth scope; API keys use clients:read. offline_access is an OAuth-only scope; API keys have no such scope."
    )
    expect(refused("apiKey", ["client:write", "sales:write", "sales:write"])).toBe(
      "Unknown scopes: client:write, sales:write. client:write: did you mean clients:write? sales is read-only: it has sales:read, no write scope."
    )
    expect(refused("oauth", ["read:inquiries", "contacts", "offline-access"])).toBe(
      "Unknown scopes: read:inquiries, contacts, offline-access. inquiries is write-only: it has write:inquiries, no read scope. contacts needs an access: read:contacts or write:contacts. offline-access: did you mean offline_access?"
    )
  })
})

describe("scopeHint", () => {
  prop(
    "a scope one edit away is suggested in the spelling asked for, whichever spelling the typo was in",
    [fc.tuple(spelling, fc.constantFrom(...SCOPE_CATALOG), fc.boolean()).chain(([sp, entry, inOther]) =>
      oneEdit(inOther ? entry[other(sp)] : entry[sp]).map((typo) => ({ sp, entry, typo }))
    )],
    ([{ sp, entry, typo }]) => {
      fc.pre(!isScopeIn(sp, typo) && !isScopeIn(other(sp), typo))
      expect(closestScopes(sp, typo)).toContain(entry[sp])
      expect(scopeHint(sp, typo)).toBeDefined()
    },
    { fastCheck: { numRuns: 500 } }
  )

  prop("a typo in the letters of a scope finds that scope", [spelling, fc.constantFrom(...SCOPE_CATALOG)], ([sp, entry]) => {
    const typo = entry[sp].replace(/[a-z](?=[a-z])/, (c) => (c === "x" ? "y" : "x"))
    fc.pre(!isScopeIn(sp, typo))
    expect(closestScopes(sp, typo)).toContain(entry[sp])
    expect(closestScopes(sp, typo.toUpperCase())).toContain(entry[sp])
  })

  prop("every suggestion is a valid scope of the spelling asked for", [spelling, token], ([sp, s]) => {
    for (const suggestion of closestScopes(sp, s)) expect(isScopeIn(sp, suggestion)).toBe(true)
  })

  prop("a hint, when there is one, starts from the token it is about or its resource", [spelling, token], ([sp, s]) => {
    fc.pre(!isScopeIn(sp, s))
    const hint = scopeHint(sp, s)
    if (hint !== undefined) expect(hint.startsWith(s) || RESOURCES.some((r) => hint.startsWith(`${r} is `))).toBe(true)
  })

  it("nothing close, no hint", () => {
    expect(scopeHint("apiKey", "admin:everything")).toBeUndefined()
    expect(scopeHint("oauth", "profile")).toBeUndefined()
    expect(closestScopes("apiKey", "")).toEqual([])
  })
})
