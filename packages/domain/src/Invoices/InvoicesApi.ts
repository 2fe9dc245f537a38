import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { RequiredScope } from "../Common/Auth.js"
import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { UpdateErrors } from "../Common/Errors.js"
import { Invoice, InvoiceCreate, InvoiceId, InvoiceList, InvoiceListParams, InvoiceReissue, InvoiceUpdate } from "./Invoice.js"

const invoices = crudEndpoints("invoices", { id: InvoiceId, resource: Invoice, create: InvoiceCreate, update: InvoiceUpdate, listQuery: InvoiceListParams, list: InvoiceList }, {
  what: "an invoice",
  list: "Lists invoices, newest first. Filters clientId, status, overdue (true: open sent invoices past due with a balance owing; false: every other invoice) and supersedesInvoice (the invoice that replaced the one given).",
  create:
    "Creates an invoice, draft or sent, with its number from the organization's series (INV-0001, ...) and its totals computed exactly in minor units. Sending issues a document version.",
  update:
    "Updates an invoice. status sent sends a draft (a no-op on a sent invoice); status void voids a draft or a sent invoice with no money on it. A void invoice cannot change. Line items cannot change: reissue the invoice.",
  delete: "Deletes a draft invoice that no payment touched; otherwise 409 invoice_not_deletable."
})

const reissue = HttpApiEndpoint.post("reissue", "/invoices/:id/reissue", {
  params: Schema.Struct({ id: InvoiceId }),
  payload: Schema.NullOr(InvoiceReissue).annotate({
    description: "Optional: what the corrected copy changes. `{}` or `null` copies the invoice as it is (a request without a body is 400: the body must be JSON)."
  }),
  success: Invoice.pipe(HttpApiSchema.status(201)),
  error: UpdateErrors
})
  .annotate(RequiredScope, "invoices:write")
  .annotate(OpenApi.Summary, "Void and reissue an invoice")
  .annotate(
    OpenApi.Description,
    "Void and reissue: takes a sent invoice without money (voiding it) or a void one not yet replaced, and creates the corrected draft copy whose supersedesInvoice names it, in one transaction. The body's fields (all optional) replace the copy's; the rest is copied. A second reissue of the same invoice is 409. Scope invoices:write."
  )

export class InvoicesApi extends resourceGroup(
  "invoices",
  { title: "Invoices", description: "Bills sent to clients, with exact totals in minor units, numbered from the organization's series, paid by payments." },
  invoices.list, invoices.create, invoices.get, invoices.update, invoices.delete, reissue
) {}
