import { expect, layer } from "@effect/vitest"
import { InvoiceStatuses, type InvoiceStatusValue, isOverdue } from "@bizops/domain"
import { FastSql } from "@bizops/server"
import { overdueCondition } from "@bizops/server/Invoices/InvoiceRows"
import { effectProp, fetched, newClient, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"
import * as fc from "fast-check"
import { randomUUID } from "node:crypto"

/**
 * The overdue rule exists twice: `isOverdue` in the domain (the `overdue` field of every invoice) and
 * `overdueCondition` in SQL (the `overdue` filter of the list). These properties prove them the same
 * over generated invoices stored in the real `invoices` table (so `balance_due_minor`, a generated
 * column, and the `date` comparison are PostgreSQL's own), for any "today".
 */

const REAL_CLOCK = { excludeTestServices: true } as const
const DAY = 86_400_000
const dayOf = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * DAY).toISOString().slice(0, 10)

interface Generated {
  readonly status: InvoiceStatusValue
  readonly totalMinor: number
  readonly amountPaidMinor: number
  /** Days after 2026-01-01. */
  readonly due: number
}

/** An invoice around the edges of the rule: sent half the time, balances of -1, 0 and 1, due dates around today. */
const invoice = (around: number): fc.Arbitrary<Generated> =>
  fc.record({
    status: fc.oneof(fc.constant<InvoiceStatusValue>("sent"), fc.constantFrom(...InvoiceStatuses)),
    totalMinor: fc.oneof(fc.constantFrom(0, 1, 100), fc.integer({ min: 0, max: 10_000_000 })),
    paid: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -1_000, max: 1_000 })),
    due: fc.integer({ min: around - 3, max: around + 3 })
  }).map(({ due, paid, status, totalMinor }) => ({ status, totalMinor, amountPaidMinor: totalMinor - paid, due }))

/** Stores the invoices for the organization (after removing its earlier ones); returns their ids in order. */
const store = (organizationId: string, clientId: string, invoices: ReadonlyArray<Generated>) =>
  Effect.gen(function*() {
    const fast = yield* FastSql
    yield* fast.rows(`DELETE FROM invoices WHERE organization_id = $1`, [organizationId])
    const ids = invoices.map(() => randomUUID())
    if (invoices.length > 0) {
      yield* fast.rows(
        `INSERT INTO invoices (id, organization_id, invoice_number, client_id, status, issue_date, due_date, currency,
           tax_rate, subtotal_minor, discount_minor, tax_minor, total_minor, amount_paid_minor, line_items)
         SELECT t.id, $1, 'INV-' || t.n, $2, t.status, t.due_date - 10, t.due_date, 'USD', 0, t.total, 0, 0, t.total, t.paid, '[]'::jsonb
         FROM unnest($3::uuid[], $4::text[], $5::date[], $6::bigint[], $7::bigint[]) WITH ORDINALITY AS t (id, status, due_date, total, paid, n)`,
        [
          organizationId,
          clientId,
          ids,
          invoices.map((i) => i.status),
          invoices.map((i) => dayOf(i.due)),
          invoices.map((i) => i.totalMinor),
          invoices.map((i) => i.amountPaidMinor)
        ]
      )
    }
    return ids
  })

/** The ids the list's condition selects, for `today`. */
const selected = (organizationId: string, overdue: boolean, today: string) =>
  Effect.map(
    Effect.flatMap(FastSql, (fast) =>
      fast.rows<{ readonly id: string }>(
        `SELECT id FROM invoice_rows WHERE organization_id = $1 AND ${overdueCondition(overdue).replace("?", "$2")}`,
        [organizationId, today]
      )),
    (rows) => new Set(rows.map((r) => r.id))
  )

layer(TestServerLive, REAL_CLOCK)("the overdue rule, in SQL and in the domain", (it) => {
  // For any today: the SQL condition selects exactly the invoices isOverdue calls overdue (computed
  // from what was generated, balance = total - paid), and its negation exactly the others.
  effectProp(
    it,
    "overdueCondition(true) is isOverdue and overdueCondition(false) its negation, for any invoices and any today",
    [fc.integer({ min: 0, max: 2_000 }).chain((today) => fc.tuple(fc.constant(today), fc.array(invoice(today), { minLength: 1, maxLength: 30 })))],
    ([[today, invoices]]) =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization()
        const clientId = (yield* newClient(org.apiKey)).id
        const ids = yield* server.withSql(store(org.organizationId, clientId, invoices))
        const day = dayOf(today)
        const overdue = yield* server.withSql(selected(org.organizationId, true, day))
        const notOverdue = yield* server.withSql(selected(org.organizationId, false, day))
        invoices.forEach((i, n) => {
          const expected = isOverdue({ status: i.status, dueDate: dayOf(i.due), balanceDue: i.totalMinor - i.amountPaidMinor }, day)
          expect(overdue.has(ids[n]), JSON.stringify({ ...i, dueDate: dayOf(i.due), today: day })).toBe(expected)
          expect(notOverdue.has(ids[n])).toBe(!expected)
        })
      }),
    { fastCheck: { numRuns: 40 } }
  )

  // Through the API (the server's own today): ?overdue=true lists exactly the invoices whose `overdue`
  // field (isOverdue) is true, and ?overdue=false exactly the others.
  it.effect("the list's overdue filter agrees with each invoice's overdue field", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const clientId = (yield* newClient(org.apiKey)).id
      const today = Math.round((Date.parse(new Date().toISOString().slice(0, 10)) - Date.UTC(2026, 0, 1)) / DAY)
      const invoices = fc.sample(invoice(today), { numRuns: 60, seed: 13 })
      yield* server.withSql(store(org.organizationId, clientId, invoices))
      const list = (filter: string) =>
        Effect.map(fetched(`/api/v1/invoices?pageSize=100${filter}`, org.apiKey), (body) => (body as { data: ReadonlyArray<{ id: string; overdue: boolean }> }).data)
      const all = yield* list("")
      expect(all.length).toBe(invoices.length)
      const overdue = new Set((yield* list("&overdue=true")).map((i) => i.id))
      const notOverdue = new Set((yield* list("&overdue=false")).map((i) => i.id))
      for (const i of all) {
        expect(overdue.has(i.id)).toBe(i.overdue)
        expect(notOverdue.has(i.id)).toBe(!i.overdue)
      }
      // The sample reaches both sides of the rule.
      expect(overdue.size).toBeGreaterThan(0)
      expect(notOverdue.size).toBeGreaterThan(0)
    }))
})
