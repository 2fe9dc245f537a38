import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@bizops/domain"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { ClientsHttp } from "./Clients/ClientsHttp.js"
import { ClientsRepo } from "./Clients/ClientsRepo.js"
import { ContactsHttp } from "./Contacts/ContactsHttp.js"
import { ContactsRepo } from "./Contacts/ContactsRepo.js"
import { DocumentVersionsHttp } from "./DocumentVersions/DocumentVersionsHttp.js"
import { DocumentVersionsRepo } from "./DocumentVersions/DocumentVersionsRepo.js"
import { EventDaysHttp } from "./EventDays/EventDaysHttp.js"
import { EventDaysRepo } from "./EventDays/EventDaysRepo.js"
import { InvoicesHttp } from "./Invoices/InvoicesHttp.js"
import { InvoicesRepo } from "./Invoices/InvoicesRepo.js"
import { PaymentsHttp } from "./Payments/PaymentsHttp.js"
import { PaymentsRepo } from "./Payments/PaymentsRepo.js"
import { AuthenticationLive, Authenticator } from "./Http/Authentication.js"
import { IdempotencyPurgeLive, IdempotencyStore, makeIdempotency } from "./Http/Idempotency.js"
import { decodeFailures, errorEnvelope } from "./Http/Envelope.js"
import { openApiDocument } from "./Http/OpenApiDocument.js"
import { routeTable } from "./Http/Routes.js"
import { ProjectsHttp } from "./Projects/ProjectsHttp.js"
import { ProjectsRepo } from "./Projects/ProjectsRepo.js"
import { TimelineItemsHttp } from "./TimelineItems/TimelineItemsHttp.js"
import { TimelineItemsRepo } from "./TimelineItems/TimelineItemsRepo.js"
import { Outbox } from "./Webhooks/Outbox.js"
import { WebhooksHttp } from "./Webhooks/WebhooksHttp.js"
import { WebhooksRepo } from "./Webhooks/WebhooksRepo.js"
import { workerLayer } from "@bizops/webhooks"
import { AppConfig } from "./Config.js"
import { Issuer } from "./OAuth/Issuer.js"
import { OAuthRepo } from "./OAuth/OAuthRepo.js"
import { OAUTH_ROUTES, OAuthRoutes } from "./OAuth/OAuthRoutes.js"
import { SigningKeys } from "./OAuth/SigningKeys.js"

export const OPENAPI_PATH = "/api/v1/openapi.json"
export const DOCS_PATH = "/docs"

const routes = routeTable(Api, [
  { method: "GET", path: OPENAPI_PATH },
  { method: "GET", path: DOCS_PATH },
  ...OAUTH_ROUTES
])

const groups = Layer.mergeAll(
  ClientsHttp.pipe(Layer.provide(ClientsRepo.Default)),
  ContactsHttp.pipe(Layer.provide(ContactsRepo.Default)),
  ProjectsHttp.pipe(Layer.provide(ProjectsRepo.Default)),
  InvoicesHttp.pipe(Layer.provide(InvoicesRepo.Default)),
  PaymentsHttp.pipe(Layer.provide(PaymentsRepo.Default)),
  DocumentVersionsHttp.pipe(Layer.provide(DocumentVersionsRepo.Default)),
  EventDaysHttp.pipe(Layer.provide(EventDaysRepo.Default)),
  TimelineItemsHttp.pipe(Layer.provide(TimelineItemsRepo.Default)),
  WebhooksHttp.pipe(Layer.provide(WebhooksRepo.Default))
).pipe(Layer.provide(AuthenticationLive(routes)), Layer.provide(Outbox.Default))

/** The HttpApi implementation: every group, the decode-failure mapping, OpenAPI and the docs page. */
export const ApiLive = Layer.mergeAll(
  HttpApiBuilder.api(Api).pipe(Layer.provide(groups)),
  HttpApiBuilder.middleware(Api, decodeFailures(routes))
)

/**
 * Serves the HttpApi with the error envelope outermost. (HttpApiBuilder.serve's own middleware runs
 * after the response is written, too late to answer unknown routes or to set X-Request-Id.)
 */
const serve = Layer.unwrapEffect(
  Effect.gen(function*() {
    const app = yield* HttpApiBuilder.httpApp
    const idempotency = yield* makeIdempotency(routes)
    return HttpServer.serve(errorEnvelope(routes)(idempotency(app)))
  })
).pipe(
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
  // The router matches paths exactly as written: case-sensitive, no folding of `//` or a trailing `/`,
  // so that it and the route table (scopes, idempotency, body checks) agree on every canonical path.
  Layer.provide(HttpRouter.setRouterConfig({ caseSensitive: true, ignoreDuplicateSlashes: false, ignoreTrailingSlash: false }))
)

/** The webhook delivery worker of packages/webhooks, on this instance, with the instance's settings. */
const WebhookWorkerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => workerLayer({ allowInsecure: config.webhooksAllowInsecure }))
)

/** `GET /api/v1/openapi.json`: the document of Http/OpenApiDocument.ts, computed once. */
const OpenApiRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const response = yield* Effect.orDie(HttpServerResponse.json(openApiDocument()))
    yield* router.get(OPENAPI_PATH, Effect.succeed(response))
  })
)

/** The OAuth 2.0 authorization server's routes (OAuth/OAuthRoutes.ts), with the instance's settings. */
const OAuthRoutesLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => OAuthRoutes({ trustedProxies: config.trustedProxies }))
).pipe(Layer.provide(Layer.mergeAll(OAuthRepo.Default, SigningKeys.Default, Issuer.Default)))

/** The HTTP server on a port, with the error envelope outermost. Needs the SQL client. */
export const serverLayer = (options: { readonly port: number; readonly host: string }) =>
  serve.pipe(
    Layer.provide(OpenApiRoute),
    Layer.provide(OAuthRoutesLive),
    Layer.provide(HttpApiScalar.layer({ path: DOCS_PATH })),
    Layer.provide(ApiLive),
    Layer.provideMerge(IdempotencyPurgeLive),
    Layer.provideMerge(WebhookWorkerLive),
    Layer.provideMerge(Layer.mergeAll(Authenticator.Default, IdempotencyStore.Default)),
    HttpServer.withLogAddress,
    // No trace exporter is configured yet, so the per-request HTTP span is only cost (about 10% of
    // the framework's own time per request, measured): off until tracing is wired to an exporter.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port, host: options.host }))
  )
