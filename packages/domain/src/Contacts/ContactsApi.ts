import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Contact, ContactCreate, ContactId, ContactList, ContactListParams, ContactUpdate } from "./Contact.js"

const contacts = crudEndpoints("contacts", { id: ContactId, resource: Contact, create: ContactCreate, update: ContactUpdate, listQuery: ContactListParams, list: ContactList }, {
  what: "a contact",
  list: "Lists contacts, newest first; `?clientId=` lists one client's.",
  create: "Creates a contact. Making a contact primary clears the flag on the client's other contacts; an email is unique per client (409 duplicate_record)."
})

export class ContactsApi extends resourceGroup(
  "contacts",
  { title: "Contacts", description: "The people at a client: names, emails and phones, one primary contact per client." },
  contacts.list, contacts.create, contacts.get, contacts.update, contacts.delete
) {}
