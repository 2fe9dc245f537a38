import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Payment, PaymentCreate, PaymentId, PaymentList, PaymentListParams, PaymentUpdate } from "./Payment.js"

const IdPath = Schema.Struct({ id: PaymentId })

export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("list", "/payments").annotate(RequiredScope, "payments:read")
      .setUrlParams(PaymentListParams)
      .addSuccess(PaymentList)
      .annotate(OpenApi.Description, "Lists payments and refunds, newest first. Filters saleId, invoiceId, clientId. Scope payments:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/payments").annotate(RequiredScope, "payments:write")
      .setPayload(PaymentCreate)
      .addSuccess(Payment, { status: 201 })
      .addError(ConflictResponse)
      .annotate(
        OpenApi.Description,
        "Records a payment, refund (negative amount, kind refund, refundOfId naming a payment of the same invoice) or adjustment on a sent or paid invoice; it succeeds at once (manual methods) and updates the invoice's amountPaid, balanceDue, status and paidAt in the same transaction. Scope payments:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/payments/:id").annotate(RequiredScope, "payments:read")
      .setPath(IdPath)
      .addSuccess(Payment)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves a payment. Scope payments:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/payments/:id").annotate(RequiredScope, "payments:write")
      .setPath(IdPath)
      .setPayload(PaymentUpdate)
      .addSuccess(Payment)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(
        OpenApi.Description,
        "Updates a payment's reference and notes; any other field of the payment is 409 record_immutable. Payments cannot be deleted. Scope payments:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Payments")
{}
