import { invalidPayload, linkedRecordNotFound } from "@bizops/domain"
import { Effect } from "effect"
import type { FastQuery } from "./Fast.js"

/**
 * A document's billing contact (an invoice's, a contract's): a contact of the organization (400
 * linked_record_not_found otherwise) and of the document's client (400 invalid_payload), locked against
 * deletion for the caller's transaction. Nothing to check when there is none.
 */
export const checkBillingContact = (
  fast: FastQuery,
  organizationId: string,
  billingContactId: string | null | undefined,
  clientId: string,
  document: "invoice" | "contract"
) =>
  billingContactId == null ? Effect.void : Effect.gen(function*() {
    const [contact] = yield* fast.rows<{ readonly clientId: string | null }>(
      `SELECT client_id FROM contacts WHERE organization_id = $1 AND id = $2 FOR SHARE`,
      [organizationId, billingContactId]
    )
    if (contact === undefined) return yield* Effect.fail(linkedRecordNotFound("billingContactId", "contact"))
    if (contact.clientId !== clientId) {
      return yield* Effect.fail(invalidPayload(["billingContactId"], `must be a contact of the ${document}'s client`))
    }
  })
