import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Payment, PaymentCreate, PaymentId, PaymentList, PaymentListParams, PaymentUpdate } from "./Payment.js"

const IdPath = Schema.Struct({ id: PaymentId })

export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("list", "/payments", { query: PaymentListParams, success: PaymentList, error: ApiErrors })
      .annotate(RequiredScope, "payments:read")
      .annotate(OpenApi.Description, "Lists payments and refunds, newest first. Filters saleId, invoiceId, clientId. Scope payments:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/payments", { payload: PaymentCreate, success: Payment.pipe(HttpApiSchema.status(201)), error: [...ApiErrors, ConflictResponse] })
      .annotate(RequiredScope, "payments:write")
      .annotate(
        OpenApi.Description,
        "Records a payment, refund (negative amount, kind refund, refundOfId naming a payment of the same invoice) or adjustment on a sent or paid invoice; it succeeds at once (manual methods) and updates the invoice's amountPaid, balanceDue, status and paidAt in the same transaction. Scope payments:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/payments/:id", { params: IdPath, success: Payment, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "payments:read")
      .annotate(OpenApi.Description, "Retrieves a payment. Scope payments:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/payments/:id", { params: IdPath, payload: PaymentUpdate, success: Payment, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "payments:write")
      .annotate(
        OpenApi.Description,
        "Updates a payment's reference and notes; any other field of the payment is 409 record_immutable. Payments cannot be deleted. Scope payments:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Payments")
{}
