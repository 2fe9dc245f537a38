import { HttpApi, OpenApi } from "@effect/platform"
import { ClientsApi } from "./Clients/ClientsApi.js"
import {
  ConflictResponse,
  ForbiddenResponse,
  InternalErrorResponse,
  InvalidRequestResponse,
  MethodNotAllowedResponse,
  NotFoundResponse,
  PayloadTooLargeResponse,
  RateLimitedResponse,
  UnauthorizedResponse
} from "./Common/Errors.js"
import { ContactsApi } from "./Contacts/ContactsApi.js"
import { DocumentVersionsApi } from "./DocumentVersions/DocumentVersionsApi.js"
import { EventDaysApi } from "./EventDays/EventDaysApi.js"
import { TimelineItemsApi } from "./TimelineItems/TimelineItemsApi.js"
import { InvoicesApi } from "./Invoices/InvoicesApi.js"
import { PaymentsApi } from "./Payments/PaymentsApi.js"
import { ProjectsApi } from "./Projects/ProjectsApi.js"
import { WebhooksApi } from "./Webhooks/WebhooksApi.js"

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

/**
 * The server answers request-decode failures with our own envelope (InvalidRequestError), so the
 * HttpApi default 400 schema is dropped from the document.
 */
const withoutDefaultDecodeError = (spec: Record<string, any>): Record<string, any> => {
  const clean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(clean)
    if (node === null || typeof node !== "object") return node
    const entries = Object.entries(node).map(([key, value]) => {
      if (key === "anyOf" && Array.isArray(value)) {
        return [key, value.filter((v) => !(typeof v === "object" && v !== null && v.$ref === DECODE_ERROR_REF)).map(clean)]
      }
      return [key, clean(value)]
    })
    const out: Record<string, unknown> = Object.fromEntries(entries)
    if (Array.isArray(out.anyOf) && out.anyOf.length === 1) {
      const { anyOf, ...rest } = out
      return { ...rest, ...(anyOf[0] as object) }
    }
    if (out.description === "The request did not match the expected schema") out.description = "Invalid request"
    return out
  }
  const result = clean(spec) as Record<string, any>
  const schemas = result.components?.schemas
  if (schemas !== undefined) {
    delete schemas.HttpApiDecodeError
    delete schemas.Issue
    delete schemas.PropertyKey
  }
  return result
}

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
  .add(PaymentsApi)
  .add(DocumentVersionsApi)
  .add(EventDaysApi)
  .add(TimelineItemsApi)
  .add(WebhooksApi)
  .addError(InvalidRequestResponse)
  .addError(UnauthorizedResponse)
  .addError(ForbiddenResponse)
  .addError(NotFoundResponse)
  .addError(MethodNotAllowedResponse)
  .addError(ConflictResponse)
  .addError(PayloadTooLargeResponse)
  .addError(RateLimitedResponse)
  .addError(InternalErrorResponse)
  .annotateContext(
    OpenApi.annotations({
      title: "Business Operations REST API",
      version: API_VERSION,
      description:
        "The JSON API of a business-operations platform: clients and leads, contacts, projects, invoices, payments and refunds, document versions, event days and their timeline, webhooks. Authenticate with `x-api-key: KEY` or `Authorization: Bearer KEY`. Every error is `{ error: { code, message, requestId, details? } }`.",
      transform: withoutDefaultDecodeError
    })
  )
{}
