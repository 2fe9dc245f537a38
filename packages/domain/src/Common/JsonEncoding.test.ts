import { describe, expect, it } from "@effect/vitest"
import { withoutNegativeZero } from "@bizops/testkit/Json"
import { Schema } from "effect"
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
const sameAsSchema = <S extends Schema.Codec<unknown, unknown>>(schema: S) => (value: S["Type"]) => {
  expect(JSON.parse(JSON.stringify(value))).toEqual(withoutNegativeZero(Schema.encodeSync(Schema.toCodecJson(schema))(value)))
}

describe("JSON text is the encoded form", () => {
  it.prop("Client", [Client], ([value]) => sameAsSchema(Client)(value))
  it.prop("Client list", [ClientList], ([value]) => sameAsSchema(ClientList)(value), { arbitrary: { runs: 30 } })
  it.prop("Contact", [Contact], ([value]) => sameAsSchema(Contact)(value))
  it.prop("Contact list", [ContactList], ([value]) => sameAsSchema(ContactList)(value), { arbitrary: { runs: 30 } })
  it.prop("Project", [Project], ([value]) => sameAsSchema(Project)(value))
  it.prop("Project list", [ProjectList], ([value]) => sameAsSchema(ProjectList)(value), { arbitrary: { runs: 30 } })
  it.prop("Invoice", [Invoice], ([value]) => sameAsSchema(Invoice)(value), { arbitrary: { runs: 50 } })
  it.prop("Invoice list", [InvoiceList], ([value]) => sameAsSchema(InvoiceList)(value), { arbitrary: { runs: 10 } })
  it.prop("Payment", [Payment], ([value]) => sameAsSchema(Payment)(value))
  it.prop("Payment list", [PaymentList], ([value]) => sameAsSchema(PaymentList)(value), { arbitrary: { runs: 30 } })
  it.prop("Document version", [DocumentVersion], ([value]) => sameAsSchema(DocumentVersion)(value))
  it.prop("Event day", [EventDay], ([value]) => sameAsSchema(EventDay)(value))
  it.prop("Event day list", [EventDayList], ([value]) => sameAsSchema(EventDayList)(value), { arbitrary: { runs: 30 } })
  it.prop("Timeline item", [TimelineItem], ([value]) => sameAsSchema(TimelineItem)(value))
  it.prop("Timeline item list", [TimelineItemList], ([value]) => sameAsSchema(TimelineItemList)(value), { arbitrary: { runs: 20 } })
  it.prop("Document version list", [DocumentVersionList], ([value]) => sameAsSchema(DocumentVersionList)(value), { arbitrary: { runs: 30 } })
})
