import {
  ClientId,
  Contact,
  type ContactCreate,
  ContactId,
  type ContactRole,
  type ContactUpdate,
  notFound,
  type PageRequest,
  type Principal
} from "@bizops/domain"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { conditions, definedOnly, findRow as findOne, getOf, listOf } from "../Sql/Lists.js"

interface ContactRow {
  readonly id: string
  readonly clientId: string | null
  readonly name: string
  readonly email: string | null
  readonly phone: string | null
  readonly title: string | null
  readonly role: ContactRole
  readonly isPrimary: boolean
  readonly sourceSubmissionId: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toContact = (row: ContactRow) =>
  new Contact({
    id: ContactId.make(row.id, { disableChecks: true }),
    name: row.name,
    email: row.email,
    phone: row.phone,
    title: row.title,
    role: row.role,
    isPrimary: row.isPrimary,
    clientId: row.clientId === null ? null : ClientId.make(row.clientId, { disableChecks: true }),
    sourceSubmissionId: row.sourceSubmissionId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })

const makeContactsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox

  /**
   * Clears the primary flag of a client's other contacts (inside the caller's transaction). The
   * client's row is locked first, so concurrent requests that make contacts of one client primary
   * take turns: the last one wins, none fails.
   */
  const clearPrimary = (principal: Principal, clientId: string | null, except: string) =>
    clientId === null ? Effect.void : Effect.gen(function*() {
      yield* sql`SELECT id FROM clients WHERE organization_id = ${principal.organizationId} AND id = ${clientId} FOR UPDATE`
      const changed = yield* sql<ContactRow & { readonly previousUpdatedAt: Date }>`UPDATE contacts c
        SET is_primary = false, updated_at = now()
        FROM (SELECT id, updated_at AS previous_updated_at FROM contacts
              WHERE organization_id = ${principal.organizationId} AND client_id = ${clientId} AND is_primary AND id <> ${except}) o
        WHERE c.organization_id = ${principal.organizationId} AND c.id = o.id
        RETURNING c.*, o.previous_updated_at`
      // Each contact that lost the flag changed too: contact_updated, with its previous attributes.
      for (const row of changed) {
        yield* outbox.updated(principal, "contact", toContact({ ...row, isPrimary: true, updatedAt: row.previousUpdatedAt }), toContact(row))
      }
    })

  const list = (
    principal: Principal,
    filters: { readonly clientId?: ClientId | undefined; readonly updatedSince?: Date | undefined },
    page: PageRequest
  ) =>
    listOf(fast, "contacts", conditions(
      ["organization_id = ?", principal.organizationId],
      ["client_id = ?", filters.clientId],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toContact)

  const findRow = (principal: Principal, id: string, forUpdate = false) =>
    Effect.map(findOne<ContactRow>(fast, "contacts", principal.organizationId, id, forUpdate), Option.fromNullishOr)

  const get = (principal: Principal, id: ContactId) =>
    getOf(fast, "contacts", principal.organizationId, id, "contact", toContact)

  const create = (principal: Principal, input: ContactCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const id = randomUUID()
        const clientId = input.clientId ?? null
        if (input.isPrimary === true) yield* clearPrimary(principal, clientId, id)
        const rows = yield* sql<ContactRow>`INSERT INTO contacts ${
          sql.insert({
            id,
            organizationId: principal.organizationId,
            clientId,
            name: input.name,
            email: input.email ?? null,
            phone: input.phone ?? null,
            title: input.title ?? null,
            role: input.role ?? "other",
            isPrimary: input.isPrimary ?? false
          })
        } RETURNING *`
        const created = toContact(rows[0])
      yield* outbox.created(principal, "contact", created)
      return created
      })
    ).pipe(refuseViolations)

  const update = (principal: Principal, id: ContactId, input: ContactUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* findRow(principal, id, true)
        if (Option.isNone(current)) return yield* Effect.fail(notFound("contact"))
        const values = definedOnly(input)
        if (Object.keys(values).length === 0) return toContact(current.value)
        const clientId = input.clientId === undefined ? current.value.clientId : input.clientId
        const primary = input.isPrimary ?? current.value.isPrimary
        if (primary) yield* clearPrimary(principal, clientId, id)
        const rows = yield* sql<ContactRow>`UPDATE contacts SET ${sql.update({ ...values, updatedAt: new Date() })}
          WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
        const updated = toContact(rows[0])
        yield* outbox.updated(principal, "contact", toContact(current.value), updated)
        return updated
      })
    ).pipe(refuseViolations)

  const remove = (principal: Principal, id: ContactId) =>
    sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql<ContactRow>`DELETE FROM contacts
        WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
      if (rows.length === 0) return yield* Effect.fail(notFound("contact"))
      yield* outbox.deleted(principal, "contact", toContact(rows[0]))
    })).pipe(refuseViolations)

  return { list, get, create, update, remove } as const
})

/** Contacts, always scoped by the caller's organization. At most one contact of a client is primary. */
export class ContactsRepo extends Context.Service<ContactsRepo, Effect.Success<typeof makeContactsRepo>>()("@bizops/server/ContactsRepo") {
  static readonly layer = Layer.effect(ContactsRepo, makeContactsRepo)
}
