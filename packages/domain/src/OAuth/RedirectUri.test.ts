import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { checkRedirectUri, isLoopback, redirectUriMatches } from "./RedirectUri.js"

interface Parts {
  readonly scheme: string
  readonly host: string
  readonly port: number | undefined
  readonly path: string
  readonly query: string | undefined
}

const render = (p: Parts): string =>
  `${p.scheme}://${p.host}${p.port === undefined ? "" : `:${p.port}`}${p.path}${p.query === undefined ? "" : `?${p.query}`}`

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"] as const

const chars = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet.split("")), minLength: min, maxLength: max })
const lower = "abcdefghijklmnopqrstuvwxyz"
const label = fc.tuple(chars(lower, 1, 1), chars(lower + "0123456789", 0, 8)).map(([a, b]) => a + b)
const domain = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), chars(lower, 2, 6)).map(([ls, tld]) => [...ls, tld].join("."))
const ipv4 = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 })).map((xs) => xs.join(".")),
  fc.tuple(fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 })).map((xs) => `127.${xs.join(".")}`)
)
const loopbackHost = fc.constantFrom(...LOOPBACK_HOSTS)
const segment = fc.oneof(
  chars(lower + "ABCXYZ0123456789-._~", 1, 10),
  fc.constantFrom("callback", "oauth2", "cb", "%20", "%C3%A9", "a%2Fb", "v1")
)
const path = fc.oneof(fc.constant(""), fc.constant("/"), fc.array(segment, { minLength: 1, maxLength: 4 }).chain((ss) => fc.constantFrom(`/${ss.join("/")}`, `/${ss.join("/")}/`)))
const pair = fc.tuple(chars(lower + "_", 1, 6), chars(lower + "0123456789-._~%2F", 0, 8)).map(([k, v]) => `${k}=${v.replaceAll("%", "%25")}`)
const query = fc.option(fc.array(pair, { minLength: 1, maxLength: 3 }).map((ps) => ps.join("&")), { nil: undefined })
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })

const httpsUri = fc.record({ scheme: fc.constant("https"), host: fc.oneof(domain, ipv4, loopbackHost), port, path, query })
const loopbackUri = fc.record({ scheme: fc.constant("http"), host: loopbackHost, port, path, query })
const registrable = fc.oneof(httpsUri, loopbackUri)

const isHttpLoopback = (p: Parts) => p.scheme === "http" && (LOOPBACK_HOSTS as ReadonlyArray<string>).includes(p.host)

describe("checkRedirectUri", () => {
  prop("https with any host, any port, path and query is accepted as given", [httpsUri], ([p]) => {
    expect(checkRedirectUri(render(p))).toEqual(Result.succeed(render(p)))
  })

  prop("http with localhost, 127.0.0.1 or [::1] and any port is accepted as given", [loopbackUri], ([p]) => {
    expect(checkRedirectUri(render(p))).toEqual(Result.succeed(render(p)))
  })

  prop("http with any other host is refused", [loopbackUri, fc.oneof(domain, ipv4.filter((h) => h !== "127.0.0.1"), fc.constantFrom("127.0.0.2", "127.1", "0.0.0.0", "LOCALHOST", "Localhost", "localhost.example.com", "[::2]", "[0:0:0:0:0:0:0:1]", "2130706433"))], ([p, host]) => {
    expect(Result.isFailure(checkRedirectUri(render({ ...p, host })))).toBe(true)
  })

  prop("any other scheme is refused", [registrable, fc.constantFrom("ftp", "ws", "wss", "file", "javascript", "data", "com.example.app", "HTTPS", "Https", "HTTP", "httpx", "http+unix")], ([p, scheme]) => {
    expect(Result.isFailure(checkRedirectUri(render({ ...p, scheme })))).toBe(true)
    expect(Result.isFailure(checkRedirectUri(`${scheme}:${p.path === "" ? "/" : p.path}`))).toBe(true)
  })

  prop("a fragment, even empty, is refused", [registrable, chars(lower + "/=&", 0, 8)], ([p, fragment]) => {
    expect(Result.isFailure(checkRedirectUri(`${render(p)}#${fragment}`))).toBe(true)
  })

  prop("user information is refused", [registrable, fc.constantFrom("user", "user:pass", "localhost", "trusted.example")], ([p, info]) => {
    expect(Result.isFailure(checkRedirectUri(render({ ...p, host: `${info}@${p.host}` })))).toBe(true)
  })

  prop("a character a URI cannot contain is refused wherever it is", [registrable, fc.constantFrom(" ", "\t", "\n", "\\", "<", ">", "\"", "é", "^", "`", "{", "|", "%G1", "%%"), fc.nat()], ([p, bad, at]) => {
    const uri = render(p)
    const i = at % (uri.length + 1)
    expect(Result.isFailure(checkRedirectUri(uri.slice(0, i) + bad + uri.slice(i)))).toBe(true)
  })

  it("relative and malformed URIs are refused", () => {
    for (const uri of ["", "/cb", "//example.com/cb", "example.com/cb", "https:/example.com/cb", "https:example.com/cb", "https:///example.com/cb", "https://", "https://?x=1", "https://example.com:99999/cb", "https://exa_mple..com:x/"]) {
      expect(Result.isFailure(checkRedirectUri(uri)), uri).toBe(true)
    }
    expect(checkRedirectUri("https://app.example.com/oauth/callback")).toEqual(Result.succeed("https://app.example.com/oauth/callback"))
    expect(checkRedirectUri("http://localhost:3000/callback")).toEqual(Result.succeed("http://localhost:3000/callback"))
  })
})

describe("isLoopback", () => {
  prop("true exactly for localhost, 127.0.0.1 and [::1]", [fc.oneof(httpsUri, loopbackUri)], ([p]) => {
    expect(isLoopback(new URL(render(p)))).toBe((LOOPBACK_HOSTS as ReadonlyArray<string>).includes(p.host))
  })

  it("examples", () => {
    expect(isLoopback(new URL("http://localhost:8080/cb"))).toBe(true)
    expect(isLoopback(new URL("http://[::1]/"))).toBe(true)
    expect(isLoopback(new URL("http://localhost.example.com/"))).toBe(false)
    expect(isLoopback(new URL("http://10.0.0.1/"))).toBe(false)
  })
})

type Change = "scheme" | "host" | "path" | "query" | "case" | "slash" | "port"

const change = (p: Parts, kind: Change, otherHost: string, otherPort: number, seed: number): string => {
  switch (kind) {
    case "scheme":
      return render({ ...p, scheme: p.scheme === "https" ? "http" : "https" })
    case "host":
      return render({ ...p, host: otherHost === p.host ? `${p.host}x` : otherHost })
    case "path":
      return render({ ...p, path: seed % 2 === 0 || p.path.length === 0 ? `${p.path}/x` : p.path.slice(0, -1) })
    case "query":
      return render({ ...p, query: p.query === undefined ? (seed % 2 === 0 ? "x=1" : "") : seed % 2 === 0 ? `${p.query}&x=1` : undefined })
    case "slash":
      return render({ ...p, path: p.path.endsWith("/") ? p.path.slice(0, -1) : `${p.path}/` })
    case "port":
      return render({ ...p, port: p.port === undefined ? otherPort : seed % 3 === 0 ? undefined : p.port === otherPort ? (otherPort % 65535) + 1 : otherPort })
    case "case": {
      const uri = render(p)
      const letters = [...uri].flatMap((c, i) => (/[a-zA-Z]/.test(c) ? [i] : []))
      const i = letters[seed % letters.length]
      const c = uri[i]
      return uri.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + uri.slice(i + 1)
    }
  }
}

describe("redirectUriMatches", () => {
  prop("a registered URI matches itself", [registrable, fc.array(registrable, { maxLength: 3 }), fc.nat()], ([p, others, at]) => {
    const list = others.map(render)
    list.splice(at % (list.length + 1), 0, render(p))
    expect(redirectUriMatches(list, render(p))).toBe(true)
  })

  prop(
    "any change of scheme, host, path, query, letter case or trailing slash never matches; a port change matches only for http loopback",
    [registrable, fc.constantFrom<Change>("scheme", "host", "path", "query", "case", "slash", "port"), fc.oneof(domain, ipv4, loopbackHost), fc.integer({ min: 1, max: 65535 }), fc.nat()],
    ([p, kind, otherHost, otherPort, seed]) => {
      const registered = render(p)
      const requested = change(p, kind, otherHost, otherPort, seed)
      expect(requested).not.toBe(registered)
      expect(redirectUriMatches([registered], requested)).toBe(kind === "port" && isHttpLoopback(p))
    }
  )

  prop("a requested URI with a fragment never matches", [registrable, chars(lower, 0, 5)], ([p, fragment]) => {
    const uri = render(p)
    expect(redirectUriMatches([uri, `${uri}#${fragment}`], `${uri}#${fragment}`)).toBe(false)
  })

  prop("matching one of several is matching any", [fc.array(registrable, { maxLength: 4 }), registrable], ([list, p]) => {
    const uris = list.map(render)
    expect(redirectUriMatches(uris, render(p))).toBe(uris.some((u) => redirectUriMatches([u], render(p))))
  })

  it("examples", () => {
    expect(redirectUriMatches([], "https://app.example.com/cb")).toBe(false)
    expect(redirectUriMatches(["http://127.0.0.1/cb"], "http://127.0.0.1:51234/cb")).toBe(true)
    expect(redirectUriMatches(["http://127.0.0.1:3000/cb"], "http://127.0.0.1/cb")).toBe(true)
    expect(redirectUriMatches(["http://[::1]:3000/cb?x=1"], "http://[::1]:4000/cb?x=1")).toBe(true)
    expect(redirectUriMatches(["http://localhost/cb"], "http://127.0.0.1/cb")).toBe(false)
    expect(redirectUriMatches(["http://localhost/cb"], "http://localhost.evil.example/cb")).toBe(false)
    expect(redirectUriMatches(["http://127.0.0.1/cb"], "http://127.0.0.1:80@evil.example/cb")).toBe(false)
    expect(redirectUriMatches(["http://localhost/cb"], "http://localhost:99999/cb")).toBe(false)
    expect(redirectUriMatches(["http://localhost/cb"], "http://localhost:/cb")).toBe(false)
    expect(redirectUriMatches(["http://localhost/cb"], "http://localhost:8080/cb/../cb")).toBe(false)
    expect(redirectUriMatches(["https://localhost/cb"], "https://localhost:8443/cb")).toBe(false)
    expect(redirectUriMatches(["https://app.example.com/cb"], "https://app.example.com:443/cb")).toBe(false)
    expect(redirectUriMatches(["https://app.example.com/cb"], "https://APP.example.com/cb")).toBe(false)
    expect(redirectUriMatches(["https://app.example.com/cb"], "https://app.example.com/cb/")).toBe(false)
  })
})
