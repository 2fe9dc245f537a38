import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, DateTime, Email, MaxString, Uuid } from "../Common/Values.js"

export const ContactId = Uuid.pipe(Schema.brand("ContactId"))
export type ContactId = typeof ContactId.Type

export const ContactRole = Schema.Literals(["primary", "billing", "other"])
export type ContactRole = typeof ContactRole.Type

export class Contact extends Schema.Class<Contact>("Contact")({
  id: ContactId,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  role: ContactRole,
  isPrimary: Schema.Boolean,
  clientId: Schema.NullOr(ClientId),
  sourceSubmissionId: Schema.NullOr(Uuid),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

const fields = {
  name: BoundedString(1, 200),
  email: Schema.NullOr(Email),
  phone: Schema.NullOr(MaxString(50)),
  title: Schema.NullOr(MaxString(200)),
  role: ContactRole,
  isPrimary: Schema.Boolean,
  clientId: Schema.NullOr(ClientId)
}

export const ContactCreate = Schema.Struct({
  name: fields.name,
  email: Schema.optionalKey(fields.email),
  phone: Schema.optionalKey(fields.phone),
  title: Schema.optionalKey(fields.title),
  role: Schema.optionalKey(fields.role),
  isPrimary: Schema.optionalKey(fields.isPrimary),
  clientId: Schema.optionalKey(fields.clientId)
}).annotate({ identifier: "ContactCreate", examples: [{ name: "Grace Hopper", email: "grace@example.com", phone: "+1 555 0100", role: "billing" }] })
export type ContactCreate = typeof ContactCreate.Type

export const ContactUpdate = Schema.Struct({
  name: Schema.optionalKey(fields.name),
  email: Schema.optionalKey(fields.email),
  phone: Schema.optionalKey(fields.phone),
  title: Schema.optionalKey(fields.title),
  role: Schema.optionalKey(fields.role),
  isPrimary: Schema.optionalKey(fields.isPrimary),
  clientId: Schema.optionalKey(fields.clientId)
}).annotate({ identifier: "ContactUpdate", examples: [{ title: "Producer" }] })
export type ContactUpdate = typeof ContactUpdate.Type

export const ContactListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optionalKey(ClientId)
})

export const ContactList = ListOf(Contact, "ContactList")
