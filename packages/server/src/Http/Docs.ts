import { Effect, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { precompress, serveAsset } from "./Precompressed.js"

/**
 * The API reference page (`/docs`): Scalar, reading the OpenAPI document from this server.
 *
 * Effect's `HttpApiScalar.layer` inlines the 3 MB Scalar bundle and the whole document into one
 * uncompressed HTML page, and Scalar then loads its fonts from fonts.scalar.com, so the page breaks
 * offline. Here the page is a few hundred bytes; the script has its own URL (versioned by its hash, so
 * browsers keep it for a year); everything is compressed once at start; and Scalar is configured to make
 * no request to any other host, which the page's Content-Security-Policy enforces.
 */

/** The path of the Scalar script under the page's path. */
export const scriptPath = (docsPath: `/${string}`): `/${string}` => `${docsPath}/scalar.js`

/** The routes this module serves, for the route table (405 with `Allow` for other methods). */
export const docsRoutes = (docsPath: `/${string}`): ReadonlyArray<{ readonly method: string; readonly path: string }> => [
  { method: "GET", path: docsPath },
  { method: "GET", path: scriptPath(docsPath) }
]

/** Where Effect keeps the bundled Scalar script (`@scalar/api-reference` 1.43.5 in effect 4.1.0). */
const SCALAR_MODULE = "dist/http-api/internal/httpApiScalar.js"

/**
 * The Scalar script that the `effect` package ships, as text. No public export gives it: the module is
 * internal (`effect/http-api/internal/*` is closed by the package's `exports`), and `HttpApiScalar` only
 * inlines it into its own page. So the module is imported by its file URL inside the `effect` package
 * directory (found through the exported `effect/package.json`), which `exports` does not govern. effect is
 * pinned to an exact version, and a moved file fails the server's start and the docs test, not a request.
 * This avoids a second copy of Scalar (`@scalar/api-reference`) in the dependencies.
 */
const loadScalarScript = Effect.tryPromise({
  try: () => {
    const effectDir = dirname(createRequire(import.meta.url).resolve("effect/package.json"))
    return import(pathToFileURL(join(effectDir, SCALAR_MODULE)).href)
  },
  catch: (cause) => new Error(`could not load the Scalar script from the effect package (${SCALAR_MODULE})`, { cause })
}).pipe(
  Effect.flatMap(Schema.decodeUnknownEffect(Schema.Struct({ javascript: Schema.String }))),
  Effect.map((module) => module.javascript),
  Effect.orDie
)

/**
 * Scalar's configuration (the options of @scalar/api-reference 1.43.5, read from the bundle's schema):
 * - no request to another host: no Inter font from fonts.scalar.com (`withDefaultFonts`), no proxy
 *   (`proxyUrl` unset, so "Test Request" calls this server directly), no telemetry, no "Open API Client"
 *   button (client.scalar.com), no developer tools (its toolbar shares and registers the document at
 *   scalar.com, and appears by default on localhost);
 * - "Test Request" and the code examples address the server that serves the page: a relative server URL,
 *   which Scalar resolves against the page's origin;
 * - operations are named by their summary; the document can be downloaded (from the copy already loaded).
 */
const scalarConfiguration = {
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  telemetry: false,
  servers: [{ url: "/", description: "This server" }],
  operationTitleSource: "summary",
  documentDownloadType: "json",
  defaultHttpClient: { targetKey: "shell", clientKey: "curl" }
} as const

const escapeAttribute = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("\"", "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")

/**
 * The page's Content-Security-Policy: scripts and every fetch from this origin only. Scalar inserts its
 * styles inline, and Zod (inside Scalar) probes whether `new Function` is allowed; both are allowed, as
 * neither loads anything. Images may be data: or blob: URLs (icons, the download link).
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * The page: Scalar's own HTML API (`<script id="api-reference" data-url data-configuration>`, read by the
 * script when it loads), so the page has no inline script and the CSP allows none.
 */
const page = (options: { readonly openApiPath: string; readonly scriptUrl: string }) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>API reference · Business Operations</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" type="application/json" data-url="${escapeAttribute(options.openApiPath)}" data-configuration="${
    escapeAttribute(JSON.stringify(scalarConfiguration))
  }"></script>
<script src="${escapeAttribute(options.scriptUrl)}"></script>
</body>
</html>
`

/**
 * `GET <path>` (the page) and `GET <path>/scalar.js` (the script), both compressed once at start and
 * answered in the coding the client accepts. The page is revalidated on every visit (its ETag makes that
 * a 304); the script, whose URL carries its hash, is cached for a year.
 */
export const DocsLive = (options: { readonly path: `/${string}`; readonly openApiPath: string }) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const script = precompress(yield* loadScalarScript, {
      contentType: "text/javascript; charset=utf-8",
      cacheControl: "public, max-age=31536000, immutable"
    })
    const html = precompress(page({ openApiPath: options.openApiPath, scriptUrl: `${scriptPath(options.path)}?v=${script.hash}` }), {
      contentType: "text/html; charset=utf-8",
      cacheControl: "no-cache",
      headers: { "content-security-policy": contentSecurityPolicy, "referrer-policy": "no-referrer", "x-frame-options": "DENY" }
    })
    yield* router.add("GET", options.path, serveAsset(html))
    yield* router.add("GET", scriptPath(options.path), serveAsset(script))
  }))
