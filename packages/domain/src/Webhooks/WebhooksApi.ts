import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { RequiredScope } from "../Common/Auth.js"
import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { ActionErrors, ListErrors, ReadErrors } from "../Common/Errors.js"
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

const webhooks = crudEndpoints("webhooks", { id: WebhookId, resource: Webhook, create: WebhookCreate, update: WebhookUpdate, listQuery: WebhookListParams, list: WebhookList }, {
  what: "a webhook subscription",
  list: "Lists webhook subscriptions, newest first.",
  create: "Creates a subscription. The secret is write-only; responses say hasSecret."
})

const IdPath = Schema.Struct({ id: WebhookId })
const DeliveryPath = Schema.Struct({ id: WebhookId, deliveryId: DeliveryId })

const events = HttpApiEndpoint.get("events", "/webhook-events", { query: Schema.Struct({ ...ListParams }), success: WebhookEventTypeList, error: ListErrors })
  .annotate(RequiredScope, "webhooks:read")
  .annotate(OpenApi.Summary, "List webhook event types")
  .annotate(OpenApi.Description, "Lists every event a subscription can name, with its payload's JSON Schema. Scope webhooks:read.")

const deliveries = HttpApiEndpoint.get("deliveries", "/webhooks/:id/deliveries", { params: IdPath, query: Schema.Struct({ ...ListParams }), success: DeliveryList, error: ReadErrors })
  .annotate(RequiredScope, "webhooks:read")
  .annotate(OpenApi.Summary, "List a subscription's deliveries")
  .annotate(OpenApi.Description, "Lists a subscription's deliveries, newest first, each with its attempts and its event. Scope webhooks:read.")

const redeliver = HttpApiEndpoint.post("redeliver", "/webhooks/:id/deliveries/:deliveryId/redeliver", {
  params: DeliveryPath,
  success: WebhookDelivery.pipe(HttpApiSchema.status(202)),
  error: ActionErrors
})
  .annotate(RequiredScope, "webhooks:write")
  .annotate(OpenApi.Summary, "Redeliver a delivery")
  .annotate(OpenApi.Description, "Queues a delivery again (202, the delivery). Scope webhooks:write.")

const test = HttpApiEndpoint.post("test", "/webhooks/:id/test", { params: IdPath, success: WebhookDelivery.pipe(HttpApiSchema.status(202)), error: ActionErrors })
  .annotate(RequiredScope, "webhooks:write")
  .annotate(OpenApi.Summary, "Send a test event")
  .annotate(OpenApi.Description, "Queues a `ping` event to the subscription (202, the delivery). Scope webhooks:write.")

export class WebhooksApi extends resourceGroup(
  "webhooks",
  { title: "Webhooks", description: "Subscriptions to the API's events, signed with Standard Webhooks, with their deliveries." },
  events,
  webhooks.list,
  webhooks.create,
  webhooks.get,
  webhooks.update,
  webhooks.delete,
  deliveries,
  redeliver,
  test
) {}
