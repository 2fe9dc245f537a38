/**
 * Void and reissue (issue 5): the corrected draft copy of an invoice. Pure: the invoice replaced, the
 * corrections the request names, and today's date in; the create input of the copy out.
 */
import { addDays, daysBetween } from "./Totals.js"

/** The invoice replaced, in the terms of a create request (line amounts in major units). */
export interface ReissueSource<Line> {
  readonly clientId: string
  readonly lineItems: ReadonlyArray<Line>
  readonly billingContactId: string | null
  readonly projectIds: ReadonlyArray<string>
  readonly subject: string | null
  readonly issueDate: string
  readonly dueDate: string
  readonly paymentTerms: string | null
  readonly notes: string | null
}

/** The corrections of a reissue request: every field optional (null clears a nullable one). */
export interface ReissueCorrections<Line> {
  readonly lineItems?: ReadonlyArray<Line> | undefined
  readonly billingContactId?: string | null | undefined
  readonly projectIds?: ReadonlyArray<string> | undefined
  readonly subject?: string | null | undefined
  readonly issueDate?: string | undefined
  readonly dueDate?: string | undefined
  readonly paymentTerms?: string | null | undefined
  readonly notes?: string | null | undefined
}

/**
 * The copy: what the request corrects, the rest copied; always a draft for the same client. Its issue date
 * is today unless given, and its due date keeps the original's term (dueDate − issueDate) from the new issue
 * date unless given.
 */
export const reissueCopy = <Line>(source: ReissueSource<Line>, corrections: ReissueCorrections<Line>, today: string) => {
  const issueDate = corrections.issueDate ?? today
  const pick = <A>(corrected: A | undefined, original: A): A => corrected === undefined ? original : corrected
  return {
    clientId: source.clientId,
    status: "draft" as const,
    lineItems: pick(corrections.lineItems, source.lineItems),
    billingContactId: pick(corrections.billingContactId, source.billingContactId),
    projectIds: pick(corrections.projectIds, source.projectIds),
    subject: pick(corrections.subject, source.subject),
    issueDate,
    dueDate: corrections.dueDate ?? addDays(issueDate, daysBetween(source.issueDate, source.dueDate)),
    paymentTerms: pick(corrections.paymentTerms, source.paymentTerms),
    notes: pick(corrections.notes, source.notes)
  }
}
