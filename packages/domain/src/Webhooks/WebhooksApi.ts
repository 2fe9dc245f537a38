import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { NotFoundResponse } from "../Common/Errors.js"
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
    HttpApiEndpoint.get("events", "/webhook-events").annotate(RequiredScope, "webhooks:read")
      .setUrlParams(Schema.Struct({ ...ListParams }))
      .addSuccess(WebhookEventTypeList)
      .annotate(OpenApi.Description, "Lists every event a subscription can name, with its payload's JSON Schema. Scope webhooks:read.")
  )
  .add(
    HttpApiEndpoint.get("list", "/webhooks").annotate(RequiredScope, "webhooks:read")
      .setUrlParams(WebhookListParams)
      .addSuccess(WebhookList)
      .annotate(OpenApi.Description, "Lists webhook subscriptions, newest first. Scope webhooks:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/webhooks").annotate(RequiredScope, "webhooks:write")
      .setPayload(WebhookCreate)
      .addSuccess(Webhook, { status: 201 })
      .annotate(OpenApi.Description, "Creates a subscription. The secret is write-only; responses say hasSecret. Scope webhooks:write.")
  )
  .add(HttpApiEndpoint.get("get", "/webhooks/:id").annotate(RequiredScope, "webhooks:read").setPath(IdPath).addSuccess(Webhook).addError(NotFoundResponse))
  .add(
    HttpApiEndpoint.patch("update", "/webhooks/:id").annotate(RequiredScope, "webhooks:write").setPath(IdPath).setPayload(WebhookUpdate).addSuccess(Webhook).addError(NotFoundResponse)
  )
  .add(HttpApiEndpoint.del("delete", "/webhooks/:id").annotate(RequiredScope, "webhooks:write").setPath(IdPath).addSuccess(HttpApiSchema.NoContent).addError(NotFoundResponse))
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries").annotate(RequiredScope, "webhooks:read")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({ ...ListParams }))
      .addSuccess(DeliveryList)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Lists a subscription's deliveries, newest first, each with its attempts and its event.")
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/webhooks/:id/deliveries/:deliveryId/redeliver").annotate(RequiredScope, "webhooks:write")
      .setPath(DeliveryPath)
      .addSuccess(WebhookDelivery, { status: 202 })
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Queues a delivery again (202, the delivery).")
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:id/test").annotate(RequiredScope, "webhooks:write")
      .setPath(IdPath)
      .addSuccess(WebhookDelivery, { status: 202 })
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Queues a `ping` event to the subscription (202, the delivery).")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Webhooks")
{}
