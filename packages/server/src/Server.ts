import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@bizops/domain"
import { workerLayer } from "@bizops/webhooks"
import { Duration, Effect, Layer } from "effect"
import { HttpMiddleware, HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createServer } from "node:http"
import { AccessRepo } from "./Access/AccessRepo.js"
import { ClientDocumentsHttp } from "./ClientDocuments/ClientDocumentsHttp.js"
import { ClientDocumentsRepo } from "./ClientDocuments/ClientDocumentsRepo.js"
import { ClientsHttp } from "./Clients/ClientsHttp.js"
import { ClientsRepo } from "./Clients/ClientsRepo.js"
import { ContactsHttp } from "./Contacts/ContactsHttp.js"
import { ContactsRepo } from "./Contacts/ContactsRepo.js"
import { ContractsHttp } from "./Contracts/ContractsHttp.js"
import { DocumentVersionsHttp } from "./DocumentVersions/DocumentVersionsHttp.js"
import { DocumentVersionsRepo } from "./DocumentVersions/DocumentVersionsRepo.js"
import { EventDaysHttp } from "./EventDays/EventDaysHttp.js"
import { EventDaysRepo } from "./EventDays/EventDaysRepo.js"
import { InvoicesHttp } from "./Invoices/InvoicesHttp.js"
import { InvoicesRepo } from "./Invoices/InvoicesRepo.js"
import { PaymentsHttp } from "./Payments/PaymentsHttp.js"
import { PaymentsRepo } from "./Payments/PaymentsRepo.js"
import { PayoutsHttp } from "./Payouts/PayoutsHttp.js"
import { PayoutsRepo } from "./Payouts/PayoutsRepo.js"
import { AuthenticationLive, Authenticator } from "./Http/Authentication.js"
import { IdempotencyPurgeLive, IdempotencyStore, makeIdempotency } from "./Http/Idempotency.js"
import { DocsLive, docsRoutes } from "./Http/Docs.js"
import { errorEnvelope } from "./Http/Envelope.js"
import { HEALTH_ROUTES, HealthRoutes } from "./Http/Health.js"
import { openApiDocument } from "./Http/OpenApiDocument.js"
import { precompress, serveAsset } from "./Http/Precompressed.js"
import { routeTable } from "./Http/Routes.js"
import { MilestonesHttp } from "./Milestones/MilestonesHttp.js"
import { MilestonesRepo } from "./Milestones/MilestonesRepo.js"
import { ProjectsHttp } from "./Projects/ProjectsHttp.js"
import { ProjectsRepo } from "./Projects/ProjectsRepo.js"
import { SaleDeleteRoute, SalesHttp } from "./Sales/SalesHttp.js"
import { SalesRepo } from "./Sales/SalesRepo.js"
import { TimelineItemsHttp } from "./TimelineItems/TimelineItemsHttp.js"
import { TimelineItemsRepo } from "./TimelineItems/TimelineItemsRepo.js"
import { Outbox } from "./Webhooks/Outbox.js"
import { WebhooksHttp } from "./Webhooks/WebhooksHttp.js"
import { WebhooksRepo } from "./Webhooks/WebhooksRepo.js"
import { AppConfig } from "./Config.js"
import { Issuer } from "./OAuth/Issuer.js"
import { OAuthRepo } from "./OAuth/OAuthRepo.js"
import { OAUTH_ROUTES, OAuthRoutes } from "./OAuth/OAuthRoutes.js"
import { SigningKeys } from "./OAuth/SigningKeys.js"

export const OPENAPI_PATH = "/api/v1/openapi.json"
export const DOCS_PATH = "/docs"

const routes = routeTable(Api, [
  { method: "GET", path: OPENAPI_PATH },
  ...docsRoutes(DOCS_PATH),
  ...HEALTH_ROUTES,
  ...OAUTH_ROUTES
])

const groups = Layer.mergeAll(
  ClientsHttp.pipe(Layer.provide(ClientsRepo.layer)),
  ContactsHttp.pipe(Layer.provide(ContactsRepo.layer)),
  ProjectsHttp.pipe(Layer.provide(ProjectsRepo.layer)),
  MilestonesHttp.pipe(Layer.provide(MilestonesRepo.layer)),
  ClientDocumentsHttp.pipe(Layer.provide(ClientDocumentsRepo.layer)),
  InvoicesHttp.pipe(Layer.provide(InvoicesRepo.layer)),
  ContractsHttp,
  PaymentsHttp.pipe(Layer.provide(PaymentsRepo.layer)),
  PayoutsHttp.pipe(Layer.provide(PayoutsRepo.layer)),
  SalesHttp.pipe(Layer.provide(SalesRepo.layer)),
  DocumentVersionsHttp.pipe(Layer.provide(DocumentVersionsRepo.layer)),
  EventDaysHttp.pipe(Layer.provide(EventDaysRepo.layer)),
  TimelineItemsHttp.pipe(Layer.provide(TimelineItemsRepo.layer)),
  WebhooksHttp.pipe(Layer.provide(WebhooksRepo.layer))
).pipe(Layer.provide(AuthenticationLive), Layer.provide(Outbox.layer))

/**
 * The HttpApi implementation: every group, behind the authentication middleware, as routes of the
 * router. (A request that does not decode is answered by the error envelope: Http/Envelope.ts.)
 */
export const ApiLive = HttpApiBuilder.layer(Api).pipe(Layer.provide(groups))

/** `GET /api/v1/openapi.json`: the document of Http/OpenApiDocument.ts, computed and compressed once (332 KB, 12 KB in brotli). */
const OpenApiRoute = HttpRouter.use((router) =>
  router.add("GET", OPENAPI_PATH, serveAsset(precompress(JSON.stringify(openApiDocument()), { contentType: "application/json", cacheControl: "no-cache" })))
)

/** `GET /docs` and `/docs/scalar.js`: the API reference page (Http/Docs.ts), offline and compressed. */
const DocsRoute = DocsLive({ path: DOCS_PATH, openApiPath: OPENAPI_PATH })

/** The OAuth 2.0 authorization server's routes (OAuth/OAuthRoutes.ts), with the instance's settings. */
const OAuthRoutesLive = Layer.unwrap(AppConfig.useSync((config) => OAuthRoutes({ trustedProxies: config.trustedProxies })))

/**
 * Serves every route with the error envelope outermost and idempotency inside it, around the router.
 * The router's services that are shared with the rest of the server (the authenticator, the OAuth
 * repository and keys, the issuer) are required, not provided here: the router is built apart (its
 * own memo map), and would otherwise make its own copies.
 */
const serve = Layer.unwrap(
  Effect.gen(function*() {
    const app = yield* HttpRouter.toHttpEffect(Layer.mergeAll(ApiLive, OpenApiRoute, DocsRoute, HealthRoutes, OAuthRoutesLive, SaleDeleteRoute(routes))).pipe(
      // The router matches paths exactly as written: case-sensitive, no folding of `//` or a trailing `/`,
      // so that it and the route table (scopes, idempotency, body checks) agree on every canonical path.
      Effect.provideService(HttpRouter.RouterConfig, { caseSensitive: true, ignoreDuplicateSlashes: false, ignoreTrailingSlash: false })
    )
    const idempotency = yield* makeIdempotency(routes)
    // No request log: HttpServer.serve adds none (HttpRouter.serve would add HttpMiddleware.logger), as
    // on Effect 3; what to log per request is issue 14's (one JSON line with LOG_FORMAT=json).
    return HttpServer.serve(errorEnvelope(routes)(idempotency(app)))
  })
)

/** The webhook delivery worker of packages/webhooks, on this instance, with the instance's settings. */
const WebhookWorkerLive = Layer.unwrap(AppConfig.useSync((config) => workerLayer({ allowInsecure: config.webhooksAllowInsecure })))

/** The HTTP server on a port, with the error envelope outermost. Needs the SQL clients and AppConfig. */
/** Where to listen; `shutdownTimeoutSeconds`: how long closing the server waits for requests in flight (default 10). */
export const serverLayer = (options: { readonly port: number; readonly host: string; readonly shutdownTimeoutSeconds?: number }) =>
  serve.pipe(
    Layer.provideMerge(IdempotencyPurgeLive),
    Layer.provideMerge(WebhookWorkerLive),
    Layer.provideMerge(Layer.mergeAll(Authenticator.layer, IdempotencyStore.layer)),
    Layer.provide(Layer.mergeAll(AccessRepo.layer, OAuthRepo.layer, SigningKeys.layer, Issuer.layer)),
    HttpServer.withLogAddress,
    // No trace exporter is configured yet, so the per-request HTTP span is only cost (about 10% of
    // the framework's own time per request on Effect 3, measured): off until tracing is wired to an
    // exporter. (Effect 4 makes no span while the tracer is its native one, which has no backend.)
    Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true)),
    Layer.provideMerge(NodeHttpServer.layer(createServer, {
      port: options.port,
      host: options.host,
      gracefulShutdownTimeout: Duration.seconds(options.shutdownTimeoutSeconds ?? 10)
    }))
  )
