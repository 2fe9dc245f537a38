import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Invoice, InvoiceCreate, InvoiceId, InvoiceList, InvoiceListParams, InvoiceReissue, InvoiceUpdate } from "./Invoice.js"

const IdPath = Schema.Struct({ id: InvoiceId })

export class InvoicesApi extends HttpApiGroup.make("invoices")
  .add(
    HttpApiEndpoint.get("list", "/invoices").annotate(RequiredScope, "invoices:read")
      .setUrlParams(InvoiceListParams)
      .addSuccess(InvoiceList)
      .annotate(
        OpenApi.Description,
        "Lists invoices, newest first. Filters clientId, status, overdue (true: open sent invoices past due with a balance owing; false: every other invoice) and supersedesInvoice (the invoice that replaced the one given). Scope invoices:read."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/invoices").annotate(RequiredScope, "invoices:write")
      .setPayload(InvoiceCreate)
      .addSuccess(Invoice, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Creates an invoice, draft or sent, with its number from the organization's series (INV-0001, ...) and its totals computed exactly in minor units. Sending issues a document version. Scope invoices:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/invoices/:id").annotate(RequiredScope, "invoices:read")
      .setPath(IdPath)
      .addSuccess(Invoice)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves an invoice. Scope invoices:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/invoices/:id").annotate(RequiredScope, "invoices:write")
      .setPath(IdPath)
      .setPayload(InvoiceUpdate)
      .addSuccess(Invoice)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(
        OpenApi.Description,
        "Updates an invoice. status sent sends a draft (a no-op on a sent invoice); status void voids a draft or a sent invoice with no money on it. A void invoice cannot change. Line items cannot change: reissue the invoice. Scope invoices:write."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/invoices/:id").annotate(RequiredScope, "invoices:write")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(OpenApi.Description, "Deletes a draft invoice that no payment touched; otherwise 409 invoice_not_deletable. Scope invoices:write.")
  )
  .add(
    HttpApiEndpoint.post("reissue", "/invoices/:id/reissue").annotate(RequiredScope, "invoices:write")
      .setPath(IdPath)
      .setPayload(Schema.NullOr(InvoiceReissue).annotations({
        description: "Optional: what the corrected copy changes. `{}` or `null` copies the invoice as it is (a request without a body is 400: the body must be JSON)."
      }))
      .addSuccess(Invoice, { status: 201 })
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(
        OpenApi.Description,
        "Void and reissue: takes a sent invoice without money (voiding it) or a void one not yet replaced, and creates the corrected draft copy whose supersedesInvoice names it, in one transaction. The body's fields (all optional) replace the copy's; the rest is copied. A second reissue of the same invoice is 409. Scope invoices:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Invoices")
{}
