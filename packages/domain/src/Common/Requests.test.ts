import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { clientAddressOf, isCanonicalPath, jsonDepth } from "./Requests.js"

/** The depth as a recursive definition would say it, for values small enough to recurse over. */
const depthOf = (value: unknown): number => {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf))
  if (value !== null && typeof value === "object") return 1 + Math.max(0, ...Object.values(value).map(depthOf))
  return 0
}

const unreserved = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".split(""))
const segment = fc.string({ unit: unreserved, minLength: 1, maxLength: 12 }).filter((s) => s !== "." && s !== "..")
const canonical = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/${segments.join("/")}`)

const percentEncode = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`

describe("jsonDepth", () => {
  prop("equals the recursive depth of any JSON value, whatever its strings hold", [fc.jsonValue({ maxDepth: 12 })], ([value]) => {
    expect(jsonDepth(JSON.stringify(value))).toBe(depthOf(value))
  })

  prop("counts nesting of any depth without recursing", [fc.integer({ min: 0, max: 500_000 }), fc.boolean()], ([n, objects]) => {
    const text = objects ? `${"{\"a\":".repeat(n)}1${"}".repeat(n)}` : `${"[".repeat(n)}${"]".repeat(n)}`
    expect(jsonDepth(text)).toBe(n)
  })

  it("ignores brackets in strings and escaped quotes", () => {
    expect(jsonDepth(JSON.stringify({ a: "[[[{{\"\\\"]]" }))).toBe(1)
    expect(jsonDepth("\"[\"")).toBe(0)
  })
})

describe("isCanonicalPath", () => {
  prop("a path of plain segments is canonical", [canonical], ([path]) => {
    expect(isCanonicalPath(path)).toBe(true)
  })

  prop("percent-escapes of reserved characters (in an id, say) stay canonical", [canonical, fc.constantFrom("%20", "%2F", "%3A", "%E2%82%AC")], ([path, escape]) => {
    expect(isCanonicalPath(`${path}${escape}`)).toBe(true)
  })

  prop(
    "every other spelling of a canonical path is not canonical",
    [canonical, fc.nat(), fc.constantFrom("empty", "trailing", "dot", "dotdot", "escape", "badEscape")],
    ([path, at, how]) => {
      const segments = path.slice(1).split("/")
      const i = at % segments.length
      const variant = ((): string => {
        switch (how) {
          case "empty":
            return `/${[...segments.slice(0, i), "", ...segments.slice(i)].join("/")}`
          case "trailing":
            return `${path}/`
          case "dot":
            return `/${[...segments.slice(0, i), ".", ...segments.slice(i)].join("/")}`
          case "dotdot":
            return `/${[...segments.slice(0, i), "x", "..", ...segments.slice(i)].join("/")}`
          case "escape": {
            const s = segments[i]
            const j = at % s.length
            const encoded = `${s.slice(0, j)}${percentEncode(s[j])}${s.slice(j + 1)}`
            return `/${[...segments.slice(0, i), encoded, ...segments.slice(i + 1)].join("/")}`
          }
          default:
            return `${path}%zz`
        }
      })()
      expect(isCanonicalPath(variant)).toBe(false)
    }
  )

  it("the variants of the scope-bypass report are not canonical", () => {
    for (const path of ["//api/v1/invoices", "/api//v1/contacts", "/api/v1//contacts", "/api/v1/%69nvoices", "/api/v1/clients/", "api/v1/clients", "http://x/api/v1/clients"]) {
      expect(isCanonicalPath(path), path).toBe(false)
    }
    expect(isCanonicalPath("/")).toBe(true)
    expect(isCanonicalPath("/api/v1/clients")).toBe(true)
  })
})

describe("clientAddressOf", () => {
  const address = fc.oneof(fc.ipV4(), fc.ipV6())

  prop(
    "behind N trusted proxies, whatever the client writes into X-Forwarded-For, the address is the one the outermost trusted proxy saw",
    [fc.array(fc.string({ maxLength: 20 }).filter((s) => !s.includes(",")), { maxLength: 5 }), address, fc.array(address, { maxLength: 4 }), address],
    ([spoofed, seen, innerProxies, socket]) => {
      // The client sends `spoofed`; the outermost trusted proxy appends the address it saw; every trusted
      // proxy nearer to us appends the address of the proxy before it.
      const header = [...spoofed, seen, ...innerProxies].join(", ")
      expect(clientAddressOf(socket, header, innerProxies.length + 1)).toBe(seen)
    }
  )

  prop("without trusted proxies the header is never read", [fc.option(fc.string()), address], ([header, socket]) => {
    expect(clientAddressOf(socket, header ?? undefined, 0)).toBe(socket)
  })

  it("a request that bypassed the proxies is counted under its socket address", () => {
    expect(clientAddressOf("10.0.0.9", undefined, 1)).toBe("10.0.0.9")
    expect(clientAddressOf("10.0.0.9", "1.2.3.4", 2)).toBe("10.0.0.9")
    expect(clientAddressOf(undefined, undefined, 0)).toBe("unknown")
  })
})
