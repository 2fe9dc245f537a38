import { HttpApi, OpenApi } from "effect/http-api"
import { ClientDocumentsApi } from "./ClientDocuments/ClientDocumentsApi.js"
import { ClientsApi } from "./Clients/ClientsApi.js"
import { strict } from "./Common/Values.js"
import { ContactsApi } from "./Contacts/ContactsApi.js"
import { ContractsApi } from "./Contracts/ContractsApi.js"
import { DocumentVersionsApi } from "./DocumentVersions/DocumentVersionsApi.js"
import { EventDaysApi } from "./EventDays/EventDaysApi.js"
import { TimelineItemsApi } from "./TimelineItems/TimelineItemsApi.js"
import { InvoicesApi } from "./Invoices/InvoicesApi.js"
import { MilestonesApi } from "./Milestones/MilestonesApi.js"
import { PaymentsApi } from "./Payments/PaymentsApi.js"
import { PayoutsApi } from "./Payouts/PayoutsApi.js"
import { ProjectsApi } from "./Projects/ProjectsApi.js"
import { SalesApi } from "./Sales/SalesApi.js"
import { WebhooksApi } from "./Webhooks/WebhooksApi.js"

/** The version of the API this package describes (section 9). */
export const API_VERSION = "1.0.0-dev"

/**
 * The Business Operations REST API v1. Another TypeScript service derives a typed client from it:
 * `HttpApiClient.make(Api, { baseUrl })`.
 */
export class Api extends HttpApi.make("bizops")
  .add(ClientsApi)
  .add(ContactsApi)
  .add(ProjectsApi)
  .add(InvoicesApi)
  .add(ContractsApi)
  .add(ClientDocumentsApi)
  .add(MilestonesApi)
  .add(PaymentsApi)
  .add(PayoutsApi)
  .add(SalesApi)
  .add(DocumentVersionsApi)
  .add(EventDaysApi)
  .add(TimelineItemsApi)
  .add(WebhooksApi)
  // Unknown fields in a body are refused, nested structs included (queries stay lenient).
  .annotate(HttpApi.PayloadParseOptions, strict)
  .annotateMerge(
    OpenApi.annotations({
      title: "Business Operations REST API",
      version: API_VERSION,
      // The service that serves the document is the API's server; a relative URL lets tools call it wherever it runs.
      servers: [{ url: "/", description: "The server that serves this document" }],
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description:
        "The JSON API of a business-operations platform: clients and leads, contacts, projects and their milestones, invoices, contracts, client documents (smart-files), payments and refunds, payouts, sales, document versions, event days and their timeline, webhooks. Authenticate with `x-api-key: KEY` or `Authorization: Bearer KEY`. Every error is `{ error: { code, message, requestId, details? } }`."
    })
  )
{}
