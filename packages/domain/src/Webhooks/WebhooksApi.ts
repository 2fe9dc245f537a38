import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, NotFoundResponse } from "../Common/Errors.js"
import { ListParams } from "../Common/Pagination.js"
import {
  DeliveryId,
  DeliveryList,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookEventTypeList,
  WebhookId,
  WebhookList,
  WebhookListParams,
  WebhookUpdate
} from "./Webhook.js"

const IdPath = Schema.Struct({ id: WebhookId })
const DeliveryPath = Schema.Struct({ id: WebhookId, deliveryId: DeliveryId })

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("events", "/webhook-events", { query: Schema.Struct({ ...ListParams }), success: WebhookEventTypeList, error: ApiErrors })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Description, "Lists every event a subscription can name, with its payload's JSON Schema. Scope webhooks:read.")
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks", { query: WebhookListParams, success: WebhookList, error: ApiErrors })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Description, "Lists webhook subscriptions, newest first. Scope webhooks:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks", { payload: WebhookCreate, success: Webhook.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Description, "Creates a subscription. The secret is write-only; responses say hasSecret. Scope webhooks:write.")
  )
  .add(HttpApiEndpoint.get("get", "/webhooks/:id", { params: IdPath, success: Webhook, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:read"))
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id", { params: IdPath, payload: WebhookUpdate, success: Webhook, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:write")
  )
  .add(HttpApiEndpoint.delete("delete", "/webhooks/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:write"))
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries", { params: IdPath, query: Schema.Struct({ ...ListParams }), success: DeliveryList, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:read")
      .annotate(OpenApi.Description, "Lists a subscription's deliveries, newest first, each with its attempts and its event.")
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/webhooks/:id/deliveries/:deliveryId/redeliver", { params: DeliveryPath, success: WebhookDelivery.pipe(HttpApiSchema.status(202)), error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Description, "Queues a delivery again (202, the delivery).")
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:id/test", { params: IdPath, success: WebhookDelivery.pipe(HttpApiSchema.status(202)), error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "webhooks:write")
      .annotate(OpenApi.Description, "Queues a `ping` event to the subscription (202, the delivery).")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Webhooks")
{}
