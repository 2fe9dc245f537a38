import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Arbitrary from "effect/Arbitrary"
import { Client, ClientList } from "../Clients/Client.js"
import { Contact, ContactList } from "../Contacts/Contact.js"
import { DocumentVersion, DocumentVersionList } from "../DocumentVersions/DocumentVersion.js"
import { EventDay, EventDayList } from "../EventDays/EventDay.js"
import { TimelineItem, TimelineItemList } from "../TimelineItems/TimelineItem.js"
import { Invoice, InvoiceList } from "../Invoices/Invoice.js"
import { Payment, PaymentList } from "../Payments/Payment.js"
import { Project, ProjectList } from "../Projects/Project.js"

/**
 * The server writes resources with JSON.stringify instead of encoding them with their schema (it is
 * several times faster). That is right only if, for every value of the schema, the JSON text is the
 * encoded form; these properties fail the day a schema gains a field whose encoding differs (a
 * bigint, a transformation, an optional key with undefined).
 */
const sameAsSchema = <A, I>(schema: Schema.Schema<A, I>) => (value: A) => {
  expect(JSON.parse(JSON.stringify(value))).toEqual(Schema.encodeSync(schema)(value))
}

describe("JSON text is the encoded form", () => {
  it.prop("Client", [Arbitrary.make(Client)], ([value]) => sameAsSchema(Client)(value))
  it.prop("Client list", [Arbitrary.make(ClientList)], ([value]) => sameAsSchema(ClientList)(value), { fastCheck: { numRuns: 30 } })
  it.prop("Contact", [Arbitrary.make(Contact)], ([value]) => sameAsSchema(Contact)(value))
  it.prop("Contact list", [Arbitrary.make(ContactList)], ([value]) => sameAsSchema(ContactList)(value), { fastCheck: { numRuns: 30 } })
  it.prop("Project", [Arbitrary.make(Project)], ([value]) => sameAsSchema(Project)(value))
  it.prop("Project list", [Arbitrary.make(ProjectList)], ([value]) => sameAsSchema(ProjectList)(value), { fastCheck: { numRuns: 30 } })
  it.prop("Invoice", [Arbitrary.make(Invoice)], ([value]) => sameAsSchema(Invoice)(value), { fastCheck: { numRuns: 50 } })
  it.prop("Invoice list", [Arbitrary.make(InvoiceList)], ([value]) => sameAsSchema(InvoiceList)(value), { fastCheck: { numRuns: 10 } })
  it.prop("Payment", [Arbitrary.make(Payment)], ([value]) => sameAsSchema(Payment)(value))
  it.prop("Payment list", [Arbitrary.make(PaymentList)], ([value]) => sameAsSchema(PaymentList)(value), { fastCheck: { numRuns: 30 } })
  it.prop("Document version", [Arbitrary.make(DocumentVersion)], ([value]) => sameAsSchema(DocumentVersion)(value))
  it.prop("Event day", [Arbitrary.make(EventDay)], ([value]) => sameAsSchema(EventDay)(value))
  it.prop("Event day list", [Arbitrary.make(EventDayList)], ([value]) => sameAsSchema(EventDayList)(value), { fastCheck: { numRuns: 30 } })
  it.prop("Timeline item", [Arbitrary.make(TimelineItem)], ([value]) => sameAsSchema(TimelineItem)(value))
  it.prop("Timeline item list", [Arbitrary.make(TimelineItemList)], ([value]) => sameAsSchema(TimelineItemList)(value), { fastCheck: { numRuns: 20 } })
  it.prop("Document version list", [Arbitrary.make(DocumentVersionList)], ([value]) => sameAsSchema(DocumentVersionList)(value), { fastCheck: { numRuns: 30 } })
})
