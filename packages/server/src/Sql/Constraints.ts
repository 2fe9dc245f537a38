import { Conflict, type InvalidRequest, linkedRecordNotFound } from "@bizops/domain"
import { Effect, Predicate } from "effect"
import { SqlError } from "effect/sql"

/** What a constraint of ours stands for, in the API's words. */
const LINKS: Record<string, { readonly field: string; readonly what: string }> = {
  clients_business_fk: { field: "businessId", what: "business" },
  contacts_client_fk: { field: "clientId", what: "client" },
  projects_client_fk: { field: "clientId", what: "client" },
  projects_business_fk: { field: "businessId", what: "business" },
  invoices_client_fk: { field: "clientId", what: "client" },
  invoices_billing_contact_fk: { field: "billingContactId", what: "contact" },
  invoices_supersedes_fk: { field: "supersedesInvoice", what: "invoice" },
  invoice_projects_project_fk: { field: "projectIds", what: "project" },
  payments_client_fk: { field: "clientId", what: "client" },
  payments_invoice_fk: { field: "invoiceId", what: "invoice" },
  payments_refund_of_fk: { field: "refundOfId", what: "payment" },
  payments_sale_fk: { field: "saleId", what: "sale" },
  payments_payout_fk: { field: "payoutId", what: "payout" },
  sales_client_fk: { field: "clientId", what: "client" },
  sales_contact_fk: { field: "contactId", what: "contact" },
  sales_business_fk: { field: "businessId", what: "business" },
  sale_line_items_sale_fk: { field: "saleId", what: "sale" },
  books_entries_sale_fk: { field: "saleId", what: "sale" },
  books_entries_payment_fk: { field: "paymentId", what: "payment" },
  event_days_project_fk: { field: "projectId", what: "project" },
  timeline_items_event_day_fk: { field: "eventDayId", what: "event day" },
  contracts_client_fk: { field: "clientId", what: "client" },
  contracts_billing_contact_fk: { field: "billingContactId", what: "contact" },
  contracts_project_fk: { field: "projectId", what: "project" },
  client_documents_contact_fk: { field: "contactId", what: "contact" },
  client_documents_client_fk: { field: "clientId", what: "client" },
  client_documents_project_fk: { field: "projectId", what: "project" },
  client_documents_engagement_project_fk: { field: "engagementProjectId", what: "project" },
  milestones_project_fk: { field: "parentId", what: "project" },
  milestones_client_document_fk: { field: "parentId", what: "client document" }
}

const UNIQUES: Record<string, string> = {
  contacts_email_per_client: "Another contact of this client has this email",
  contacts_one_primary: "Another request made a different contact of this client primary at the same time; retry",
  invoices_one_replacement: "The invoice was already reissued",
  sales_number_unique: "Another sale of this organization has this sale number",
  sales_external_id_unique: "Another sale of this organization has this externalId",
  client_documents_external_id_unique: "Another client document of this organization has this externalId",
  payouts_processor_id_unique: "Another payout of this organization has this processorPayoutId"
}

interface PgError {
  readonly code: string
  readonly constraint?: string
  readonly message: string
}

/**
 * PostgreSQL's own fields of a failed statement. @effect/sql-pg 4 classifies the error (the reason:
 * `UniqueViolation`, `ConstraintError`, …) and keeps the server's fields (`code`, `constraint`, its
 * message) on the reason's `cause`.
 */
const pgErrorOf = (error: SqlError.SqlError): PgError | undefined => {
  const cause = error.reason.cause
  return Predicate.hasProperty(cause, "code") && typeof cause.code === "string" && Predicate.hasProperty(cause, "message") &&
      typeof cause.message === "string"
    ? {
      code: cause.code,
      message: cause.message,
      ...(Predicate.hasProperty(cause, "constraint") && typeof cause.constraint === "string" ? { constraint: cause.constraint } : {})
    }
    : undefined
}

/**
 * Turns the constraint violations that a client's request can cause into the contract's answers;
 * anything else stays a defect (500). Foreign keys: a write that names another organization's (or
 * no) record is 400 linked_record_not_found; a delete of a record others point at is 409
 * record_has_dependents. Unique indexes: 409 duplicate_record.
 */
export const refuseViolations = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e: E): e is Extract<E, SqlError.SqlError> => SqlError.isSqlError(e),
    (error): Effect.Effect<never, InvalidRequest | Conflict> => {
      const pgError = pgErrorOf(error)
      const constraint = pgError?.constraint
      if (pgError?.code === "23503" && constraint !== undefined && LINKS[constraint]) {
        if (pgError.message.startsWith("update or delete on table")) {
          return Effect.fail(
            new Conflict({
              message: "Other records point at this record; delete or move them first",
              details: { code: "record_has_dependents" }
            })
          )
        }
        const link = LINKS[constraint]
        return Effect.fail(linkedRecordNotFound(link.field, link.what))
      }
      if (pgError?.code === "23505" && constraint !== undefined && UNIQUES[constraint]) {
        return Effect.fail(new Conflict({ message: UNIQUES[constraint], details: { code: "duplicate_record" } }))
      }
      return Effect.die(error)
    }
  )
