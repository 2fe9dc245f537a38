import {
  Contact,
  type ContactCreate,
  ContactId,
  type ContactListParams,
  type ContactUpdate,
  type Filters,
  type PageRequest,
  type Principal
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { byFilters, definedOnly } from "../Sql/Lists.js"
import { fromRow, type RowOf } from "../Sql/Rows.js"
import { makeResource } from "../Sql/Resource.js"
import { Outbox } from "../Webhooks/Outbox.js"

type ContactRow = RowOf<typeof Contact>

const toContact = fromRow(Contact)

const makeContactsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const outbox = yield* Outbox
  const contacts = yield* makeResource({ table: "contacts", resource: "contact", what: "contact", toResource: toContact })

  /**
   * Clears the primary flag of a client's other contacts (inside the caller's transaction). The
   * client's row is locked first, so concurrent requests that make contacts of one client primary
   * take turns: the last one wins, none fails.
   */
  const clearPrimary = (principal: Principal, clientId: string | null, except: string) =>
    clientId === null ? Effect.void : Effect.gen(function*() {
      yield* sql`SELECT id FROM clients WHERE organization_id = ${principal.organizationId} AND id = ${clientId} FOR UPDATE`
      const changed = yield* sql<ContactRow & { readonly previousUpdatedAt: Date }>`UPDATE contacts c
        SET is_primary = false, updated_at = ${yield* contacts.now}
        FROM (SELECT id, updated_at AS previous_updated_at FROM contacts
              WHERE organization_id = ${principal.organizationId} AND client_id = ${clientId} AND is_primary AND id <> ${except}) o
        WHERE c.organization_id = ${principal.organizationId} AND c.id = o.id
        RETURNING c.*, o.previous_updated_at`
      // Each contact that lost the flag changed too: contact_updated, with its previous attributes.
      for (const row of changed) {
        yield* outbox.updated(principal, "contact", toContact({ ...row, isPrimary: true, updatedAt: row.previousUpdatedAt }), toContact(row))
      }
    })

  const list = (filters: Filters<typeof ContactListParams>, page: PageRequest) => contacts.list(byFilters(filters), page)

  const create = (input: ContactCreate) =>
    contacts.create((id, principal) =>
      Effect.gen(function*() {
        const clientId = input.clientId ?? null
        if (input.isPrimary === true) yield* clearPrimary(principal, clientId, id)
        return {
          clientId,
          name: input.name,
          email: input.email ?? null,
          phone: input.phone ?? null,
          title: input.title ?? null,
          role: input.role ?? "other",
          isPrimary: input.isPrimary ?? false
        }
      })
    )

  const update = (id: ContactId, input: ContactUpdate) =>
    contacts.update(id, (current, principal) =>
      Effect.gen(function*() {
        const values = definedOnly(input)
        if (Object.keys(values).length === 0) return values
        const clientId = input.clientId === undefined ? current.clientId : input.clientId
        if (input.isPrimary ?? current.isPrimary) yield* clearPrimary(principal, clientId, id)
        return values
      })
    )

  return { list, get: contacts.get, create, update, remove: contacts.remove } as const
})

/** Contacts, always scoped by the caller's organization. At most one contact of a client is primary. */
export class ContactsRepo extends Context.Service<ContactsRepo, Effect.Success<typeof makeContactsRepo>>()("@bizops/server/ContactsRepo") {
  static readonly layer = Layer.effect(ContactsRepo, makeContactsRepo)
}
