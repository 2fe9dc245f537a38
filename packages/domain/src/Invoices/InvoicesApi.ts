import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { Invoice, InvoiceCreate, InvoiceId, InvoiceList, InvoiceListParams, InvoiceReissue, InvoiceUpdate } from "./Invoice.js"

const IdPath = Schema.Struct({ id: InvoiceId })

export class InvoicesApi extends HttpApiGroup.make("invoices")
  .add(
    HttpApiEndpoint.get("list", "/invoices", { query: InvoiceListParams, success: InvoiceList, error: ApiErrors })
      .annotate(RequiredScope, "invoices:read")
      .annotate(
        OpenApi.Description,
        "Lists invoices, newest first. Filters clientId, status, overdue (true: open sent invoices past due with a balance owing; false: every other invoice) and supersedesInvoice (the invoice that replaced the one given). Scope invoices:read."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/invoices", { payload: InvoiceCreate, success: Invoice.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "invoices:write")
      .annotate(
        OpenApi.Description,
        "Creates an invoice, draft or sent, with its number from the organization's series (INV-0001, ...) and its totals computed exactly in minor units. Sending issues a document version. Scope invoices:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/invoices/:id", { params: IdPath, success: Invoice, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "invoices:read")
      .annotate(OpenApi.Description, "Retrieves an invoice. Scope invoices:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/invoices/:id", { params: IdPath, payload: InvoiceUpdate, success: Invoice, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "invoices:write")
      .annotate(
        OpenApi.Description,
        "Updates an invoice. status sent sends a draft (a no-op on a sent invoice); status void voids a draft or a sent invoice with no money on it. A void invoice cannot change. Line items cannot change: reissue the invoice. Scope invoices:write."
      )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/invoices/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "invoices:write")
      .annotate(OpenApi.Description, "Deletes a draft invoice that no payment touched; otherwise 409 invoice_not_deletable. Scope invoices:write.")
  )
  .add(
    HttpApiEndpoint.post("reissue", "/invoices/:id/reissue", { params: IdPath, payload: Schema.NullOr(InvoiceReissue).annotate({
        description: "Optional: what the corrected copy changes. `{}` or `null` copies the invoice as it is (a request without a body is 400: the body must be JSON)."
      }), success: Invoice.pipe(HttpApiSchema.status(201)), error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "invoices:write")
      .annotate(
        OpenApi.Description,
        "Void and reissue: takes a sent invoice without money (voiding it) or a void one not yet replaced, and creates the corrected draft copy whose supersedesInvoice names it, in one transaction. The body's fields (all optional) replace the copy's; the rest is copied. A second reissue of the same invoice is 409. Scope invoices:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Invoices")
{}
