/// <reference lib="dom" />
/**
 * The API reference page (`/docs`, Http/Docs.ts), over real HTTP and in headless Chromium (Debian's
 * chromium package, driven by puppeteer-core as in oauth-screenshots.test.ts).
 *
 * Over HTTP: the page and the Scalar script come in the coding asked for (brotli or gzip, identity
 * otherwise), much smaller and decompressing to the same bytes, with `Vary`, an ETag per coding, the
 * cache headers (the script is versioned by its hash and kept a year) and 304 on revalidation.
 *
 * In the browser, every request is recorded and one to any other host is aborted (so none leaves the
 * machine) and fails the test, as do a console error or warning, a script error and a CSP violation:
 * - loading the page and trying the list of clients ("Test Request", Send) asks nothing but the test
 *   server; the sidebar names every operation by its summary; the request sent answers 200;
 * - every curl example the page shows, sent as written (with a real key for Scalar's placeholder), runs:
 *   a list answers 200, and no example is refused as malformed.
 */
import { expect, layer } from "@effect/vitest"
import { chromiumPath, expectError, request, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { type IncomingHttpHeaders, request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import puppeteer, { type HTTPRequest, type Page } from "puppeteer-core"

const REAL_CLOCK = { excludeTestServices: true } as const


interface Raw {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The body's bytes as they came over the wire (not decompressed). */
  readonly bytes: Buffer
}

/** One GET with node:http, which sends no Accept-Encoding of its own and decompresses nothing (fetch would). */
const getRaw = (baseUrl: string, path: string, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    new Promise<Raw>((resolve, reject) => {
      const url = new URL(baseUrl)
      const req = httpRequest({ host: url.hostname, port: url.port, method: "GET", path, headers }, (res) => {
        const parts: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => parts.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(parts) }))
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end()
    })
  )

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const DECODE = { br: brotliDecompressSync, gzip: gunzipSync } as const

interface Operation {
  readonly method: string
  readonly path: string
  readonly summary: string | undefined
}

const PathItems = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))
const OpenApiDocument = Schema.Struct({ paths: PathItems, webhooks: Schema.optional(PathItems) })
const OperationObject = Schema.Struct({ summary: Schema.optional(Schema.String) })
const METHODS = ["get", "post", "put", "patch", "delete"]

/** Every operation of the document (its paths, and its webhooks unless `withWebhooks` is false), with its summary. */
const operationsOf = (openapi: unknown, withWebhooks = true): ReadonlyArray<Operation> => {
  const document = Schema.decodeUnknownSync(OpenApiDocument)(openapi)
  return [document.paths, ...(withWebhooks ? [document.webhooks ?? {}] : [])].flatMap((items) =>
    Object.entries(items).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ method, path, summary: Schema.decodeUnknownSync(OperationObject)(operation).summary }))
    )
  )
}

/** The operation entries of Scalar's sidebar (each has an HTTP method badge), by their label. */
const sidebarOperations = (page: Page) =>
  page.$$eval("button:has(.sidebar-heading-type)", (buttons) =>
    Array.from(new Set(buttons.map((b) => (b.querySelector(".group\\/button-label")?.textContent ?? "").trim()))))

/** Clicks every collapsed group of the sidebar ("Open Group …") until none is left. */
const openAllGroups = async (page: Page) => {
  for (let round = 0; round < 50; round++) {
    const opened = await page.evaluate(() => {
      const closed = Array.from(document.querySelectorAll("button")).find((b) =>
        (b.textContent ?? "").includes("Open Group") && b.offsetParent !== null
      )
      if (closed === undefined) return false
      closed.click()
      return true
    })
    if (!opened) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every curl example the page shows (Scalar renders one per operation once its group is open). */
const curlExamples = (page: Page) =>
  page.$$eval("code", (codes) => codes.map((c) => (c.textContent ?? "").trim()).filter((t) => t.startsWith("curl ")))

interface Example {
  readonly text: string
  readonly method: string
  readonly url: string
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly data: string | undefined
}

/** The parts of a shown curl example (`curl URL --request M --header 'Name: value' --data '…'`). */
const parseCurl = (text: string): Example => {
  const unquote = (s: string) => s.replaceAll("'\\''", "'")
  return {
    text,
    url: /^curl '?([^'\s]+)'?/.exec(text)?.[1] ?? "",
    method: /--request (\w+)/.exec(text)?.[1] ?? "GET",
    headers: Array.from(text.matchAll(/--header '([^:']+):\s?((?:[^']|'\\'')*)'/g), (m) => [m[1], unquote(m[2])] as const),
    data: ((d) => d === undefined ? undefined : unquote(d))(/--data '((?:[^']|'\\'')*)'/.exec(text)?.[1])
  }
}

/** Sends an example exactly as shown, with the key in place of Scalar's placeholder. */
const runExample = (example: Example, apiKey: string) =>
  Effect.promise(() =>
    fetch(example.url, {
      method: example.method,
      headers: example.headers.map(([name, value]): [string, string] => [name, value === "YOUR_SECRET_TOKEN" ? apiKey : value]),
      ...(example.data === undefined ? {} : { body: example.data })
    }).then(async (r) => ({ status: r.status, text: await r.text() }))
  )

interface Browsing {
  readonly page: Page
  /** Every URL the page asked for. */
  readonly requests: Array<string>
  /** The requests to any other host (aborted). */
  readonly elsewhere: Array<string>
  /** Console errors and warnings, script errors, failed requests, CSP violations. */
  readonly problems: Array<string>
  /** The API calls the page made (Test Request), with their status. */
  readonly apiCalls: Array<{ readonly url: string; readonly status: number }>
}

/**
 * Headless Chromium on /docs, every request recorded. A request to another host is aborted (so it never
 * leaves the machine) and recorded as such. A call of the API (Test Request) gets the organization's key,
 * as a person would type it into Scalar's authentication field.
 */
const browseDocs = (baseUrl: string, apiKey: string) =>
  Effect.gen(function*() {
    const executablePath = chromiumPath()
    if (!existsSync(executablePath)) {
      return yield* Effect.die(
        new Error(`Chromium is not installed (looked for ${executablePath}; set CHROMIUM_PATH or install Debian's chromium package, as .ci/run does)`)
      )
    }
    const origin = new URL(baseUrl).origin
    const isApiCall = (url: URL) => url.origin === origin && url.pathname.startsWith("/api/v1/") && url.pathname !== "/api/v1/openapi.json"
    const browser = yield* Effect.acquireRelease(
      Effect.promise(() => puppeteer.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] })),
      (b) => Effect.promise(() => b.close())
    )
    const page = yield* Effect.promise(() => browser.newPage())
    const browsing: Browsing = { page, requests: [], elsewhere: [], problems: [], apiCalls: [] }
    yield* Effect.promise(async () => {
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warn") browsing.problems.push(`console ${message.type()}: ${message.text()}`)
      })
      page.on("pageerror", (error) => browsing.problems.push(`page error: ${String(error)}`))
      page.on("requestfailed", (r) => {
        if (r.url().startsWith(origin)) browsing.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`)
      })
      page.on("response", (response) => {
        if (isApiCall(new URL(response.url()))) browsing.apiCalls.push({ url: response.url(), status: response.status() })
      })
      await page.exposeFunction("reportCspViolation", (text: string) => {
        browsing.problems.push(`CSP violation: ${text}`)
      })
      await page.evaluateOnNewDocument(() => {
        document.addEventListener("securitypolicyviolation", (event) => {
          const report: unknown = Reflect.get(window, "reportCspViolation")
          if (typeof report === "function") report(`${event.violatedDirective} blocked ${event.blockedURI}`)
        })
      })
      await page.setRequestInterception(true)
      page.on("request", (r: HTTPRequest) => {
        const url = new URL(r.url())
        browsing.requests.push(r.url())
        if (url.protocol === "data:" || url.protocol === "blob:") {
          void r.continue()
        } else if (url.origin !== origin) {
          browsing.elsewhere.push(r.url())
          void r.abort()
        } else if (isApiCall(url)) {
          void r.continue({ headers: { ...r.headers(), "x-api-key": apiKey } })
        } else {
          void r.continue()
        }
      })
      await page.setViewport({ width: 1280, height: 900 })
    })
    const response = yield* Effect.promise(() => page.goto(`${baseUrl}/docs`, { waitUntil: "networkidle0" }))
    expect(response?.status()).toBe(200)
    // Chromium asks for brotli and gets it.
    expect(response?.headers()["content-encoding"]).toBe("br")
    yield* Effect.promise(() => page.waitForSelector("button:has(.sidebar-heading-type)", { timeout: 20_000 }))
    yield* Effect.promise(() => openAllGroups(page))
    return browsing
  })

layer(TestServerLive, REAL_CLOCK)("the API reference page", (it) => {
  it.effect("the page and its script are compressed on request, with Vary, ETags and cache headers", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* TestServer

      // Identity when the client asks for no coding.
      const page = yield* getRaw(baseUrl, "/docs")
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["content-encoding"]).toBeUndefined()
      expect(page.headers["vary"]).toBe("Accept-Encoding")
      expect(page.headers["cache-control"]).toBe("no-cache")
      expect(page.headers["etag"]).toMatch(/^"[0-9a-f]{20}"$/)
      expect(page.headers["content-security-policy"]).toContain("connect-src 'self'")
      expect(page.headers["content-security-policy"]).toContain("default-src 'none'")
      const html = page.bytes.toString("utf8")
      // The page names no other host: the script, the document and the icon are all this server's.
      expect(html).not.toMatch(/https?:|\/\//)
      const scriptSrc = /<script src="([^"]+)"/.exec(html)?.[1] ?? ""
      const scriptUrl = new URL(scriptSrc, baseUrl)
      expect(scriptUrl.pathname).toBe("/docs/scalar.js")
      expect(html).toContain(`data-url="/api/v1/openapi.json"`)

      const script = yield* getRaw(baseUrl, scriptSrc)
      expect(script.status).toBe(200)
      expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      expect(script.headers["content-encoding"]).toBeUndefined()
      expect(script.headers["content-length"]).toBe(String(script.bytes.length))
      expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expect(script.headers["vary"]).toBe("Accept-Encoding")
      expect(script.bytes.toString("utf8")).toContain("@scalar/api-reference")
      // The version in the script's URL is its content hash, so a new script gets a new URL.
      expect(scriptUrl.searchParams.get("v")).toBe(sha256(script.bytes).slice(0, 20))
      expect(script.headers["etag"]).toBe(`"${scriptUrl.searchParams.get("v")}"`)

      for (const coding of ["br", "gzip"] as const) {
        for (const [path, identity] of [["/docs", page], [scriptSrc, script]] as const) {
          const compressed = yield* getRaw(baseUrl, path, { "accept-encoding": coding })
          expect(compressed.status, `${path} ${coding}`).toBe(200)
          expect(compressed.headers["content-encoding"], `${path} ${coding}`).toBe(coding)
          expect(compressed.headers["vary"]).toBe("Accept-Encoding")
          expect(compressed.headers["content-type"]).toBe(identity.headers["content-type"])
          expect(compressed.headers["cache-control"]).toBe(identity.headers["cache-control"])
          expect(compressed.headers["content-length"]).toBe(String(compressed.bytes.length))
          // Another representation, another strong ETag.
          expect(compressed.headers["etag"]).toBe(`"${String(identity.headers["etag"]).slice(1, -1)}-${coding}"`)
          expect(Buffer.from(DECODE[coding](compressed.bytes)).equals(identity.bytes), `${path} ${coding} decompresses to the same`).toBe(true)
          expect(compressed.bytes.length).toBeLessThan(identity.bytes.length)
        }
      }
      const scriptBr = yield* getRaw(baseUrl, scriptSrc, { "accept-encoding": "br" })
      const scriptGzip = yield* getRaw(baseUrl, scriptSrc, { "accept-encoding": "gzip" })
      // 3.2 MB of script travel as about 0.8 MB.
      expect(script.bytes.length).toBeGreaterThan(2_000_000)
      expect(scriptBr.bytes.length).toBeLessThan(script.bytes.length / 3)
      expect(scriptGzip.bytes.length).toBeLessThan(script.bytes.length / 3)

      // What browsers send picks brotli; q-values are honoured; identity when only identity is accepted.
      const codingFor = (acceptEncoding: string) =>
        Effect.map(getRaw(baseUrl, "/docs", { "accept-encoding": acceptEncoding }), (r) => r.headers["content-encoding"] ?? "identity")
      expect(yield* codingFor("gzip, deflate, br, zstd")).toBe("br")
      expect(yield* codingFor("br;q=0, gzip")).toBe("gzip")
      expect(yield* codingFor("gzip;q=0.8, br;q=0.5")).toBe("gzip")
      expect(yield* codingFor("x-gzip")).toBe("gzip")
      expect(yield* codingFor("*")).toBe("br")
      expect(yield* codingFor("identity")).toBe("identity")
      expect(yield* codingFor("deflate")).toBe("identity")
      expect(yield* codingFor("")).toBe("identity")

      // Revalidation: the ETag of the representation asked for is 304 without a body; another one is not.
      const notModified = yield* getRaw(baseUrl, scriptSrc, { "accept-encoding": "br", "if-none-match": String(scriptBr.headers["etag"]) })
      expect(notModified.status).toBe(304)
      expect(notModified.bytes.length).toBe(0)
      expect(notModified.headers["etag"]).toBe(scriptBr.headers["etag"])
      expect(notModified.headers["vary"]).toBe("Accept-Encoding")
      expect(notModified.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      const pageNotModified = yield* getRaw(baseUrl, "/docs", { "if-none-match": `W/${String(page.headers["etag"])}, "other"` })
      expect(pageNotModified.status).toBe(304)
      const otherCoding = yield* getRaw(baseUrl, scriptSrc, { "if-none-match": String(scriptBr.headers["etag"]) })
      expect(otherCoding.status).toBe(200)
      expect(otherCoding.bytes.equals(script.bytes)).toBe(true)

      // Both paths are in the route table: another method is 405 with Allow.
      for (const path of ["/docs", "/docs/scalar.js"]) {
        const post = yield* request("POST", path, { json: {} })
        expectError(post, 405, "method_not_allowed")
        expect(post.headers.get("allow")).toBe("GET")
      }
      // The OpenAPI document the page loads is compressed the same way.
      const spec = yield* getRaw(baseUrl, "/api/v1/openapi.json")
      const specBr = yield* getRaw(baseUrl, "/api/v1/openapi.json", { "accept-encoding": "br" })
      expect(specBr.headers["content-encoding"]).toBe("br")
      expect(specBr.headers["vary"]).toBe("Accept-Encoding")
      expect(Buffer.from(brotliDecompressSync(specBr.bytes)).equals(spec.bytes)).toBe(true)
      expect(specBr.bytes.length).toBeLessThan(spec.bytes.length / 10)
    }))

  it.effect("in Chromium: nothing but this server is asked, no error, operations named by their summary, Test Request works", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const openapi = yield* Effect.promise(() => fetch(`${server.baseUrl}/api/v1/openapi.json`).then((r) => r.json()))
      const operations = operationsOf(openapi)
      const { apiCalls, elsewhere, page, problems, requests } = yield* browseDocs(server.baseUrl, org.apiKey)
      expect(yield* Effect.promise(() => page.title())).toBe("API reference · Business Operations")

      // The sidebar names every operation by its summary (every operation has one), not by its path.
      expect(operations.length).toBeGreaterThan(20)
      expect(operations.filter((o) => o.summary === undefined || o.summary === "").map((o) => `${o.method} ${o.path}`)).toEqual([])
      const shown = yield* Effect.promise(() => sidebarOperations(page))
      expect([...shown].sort()).toEqual(Array.from(new Set(operations.map((o) => o.summary ?? ""))).sort())
      expect(shown).toContain("List clients")

      // "Test Request" on the list of clients, then Send: the request goes to this server and answers 200.
      yield* Effect.promise(async () => {
        await page.evaluate(() => {
          const button = Array.from(document.querySelectorAll("button")).find((b) => (b.textContent ?? "").includes("Test Request(get /api/v1/clients)"))
          if (button === undefined) throw new Error("no Test Request button for GET /api/v1/clients")
          button.click()
        })
        const send = await page.waitForSelector("button::-p-text(Send Request)", { timeout: 10_000 })
        await Promise.all([
          page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/clients", { timeout: 10_000 }),
          send?.click()
        ])
      })
      expect(apiCalls.length).toBe(1)
      expect(apiCalls[0].status, apiCalls[0].url).toBe(200)
      const tried = new URL(apiCalls[0].url)
      expect(tried.pathname).toBe("/api/v1/clients")
      // No parameter is sent empty (an empty page or pageSize is a 400).
      expect(Array.from(tried.searchParams).filter(([, value]) => value === "")).toEqual([])

      expect(requests.map((u) => new URL(u).pathname)).toEqual(expect.arrayContaining(["/docs", "/docs/scalar.js", "/api/v1/openapi.json"]))
      expect(elsewhere).toEqual([])
      expect(problems).toEqual([])
    }), { timeout: 90_000 })

  it.effect("every curl example the page shows runs as shown: a list answers 200, nothing is refused as malformed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const origin = new URL(server.baseUrl).origin
      const openapi = yield* Effect.promise(() => fetch(`${server.baseUrl}/api/v1/openapi.json`).then((r) => r.json()))
      const { elsewhere, page, problems } = yield* browseDocs(server.baseUrl, org.apiKey)
      // One example per operation of the API (the webhook events are received, not called). Scalar renders
      // the operations as the page scrolls and as it gets to them: wait until every one is there.
      const expected = operationsOf(openapi, false).length
      const shown = yield* Effect.promise(async () => {
        let found = await curlExamples(page)
        for (let i = 0; i < 120 && found.length < expected; i++) {
          await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight))
          await new Promise((done) => setTimeout(done, 250))
          found = await curlExamples(page)
        }
        return found
      })
      const examples = shown.map(parseCurl)
      expect(examples.length).toBe(expected)

      const failures: Array<string> = []
      for (const example of examples) {
        const url = new URL(example.url)
        expect(url.origin, example.text).toBe(origin)
        const answer = yield* runExample(example, org.apiKey)
        const placeholderId = /\/123e4567-e89b-12d3-a456-426614174000(\/|$)/.test(url.pathname)
        // A list answers 200. Any other example may name Scalar's placeholder id (404) or link to a record
        // that does not exist (400 linked_record_not_found); a 400 for the request's form never.
        const ok = example.method === "GET" && !placeholderId
          ? answer.status === 200
          : answer.status < 400 || answer.status === 404 || (answer.status === 400 && answer.text.includes("linked_record_not_found"))
        if (!ok) failures.push(`${example.method} ${url.pathname}${url.search} → ${answer.status} ${answer.text.slice(0, 200)}`)
      }
      expect(failures).toEqual([])
      expect(elsewhere).toEqual([])
      expect(problems).toEqual([])
    }), { timeout: 90_000 })
})
