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
import { ProjectsApi } from "./Projects/ProjectsApi.js"

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
        "The JSON API of a business-operations platform: clients and leads, contacts, projects. Authenticate with `x-api-key: KEY` or `Authorization: Bearer KEY`. Every error is `{ error: { code, message, requestId, details? } }`."
    })
  )
{}
