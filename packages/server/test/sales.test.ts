import { expect, layer } from "@effect/vitest"
import { saleEntries } from "@bizops/domain"
import { del, expectError, get, newClient, NIL, patch, request, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect, Predicate } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"

/**
 * Sales are read-only over the API and arrive through the import (a later step), so the fixtures are
 * rows written with SQL as the import will write them: money in minor units of the sale's currency.
 */
interface SaleFixture {
  readonly organizationId: string
  readonly saleNumber: string
  readonly createdAt: Date
  readonly [column: string]: unknown
}

const insertSale = (fixture: SaleFixture) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const id = randomUUID()
    yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO sales ${
        sql.insert({
          id,
          channel: "pos",
          saleDate: "2027-04-20",
          currency: "USD",
          status: "completed",
          taxInclusive: true,
          subtotalMinor: 8264,
          discountPercent: null,
          discountAmountMinor: 0,
          taxRate: 8.875,
          taxAmountMinor: 736,
          totalMinor: 9000,
          amountRefundedMinor: 0,
          updatedAt: fixture.createdAt,
          ...fixture
        })
      }`))
    return id
  })

/** A field of PostgreSQL's error of a failed statement (kept on the SqlError's cause): `constraint`, `code`. */
const pgField = (error: unknown, field: "constraint" | "code"): unknown =>
  Predicate.hasProperty(error, "reason") && Predicate.hasProperty(error.reason, "cause") && Predicate.hasProperty(error.reason.cause, field)
    ? error.reason.cause[field]
    : undefined
const constraintOf = (error: unknown) => pgField(error, "constraint")

const at = (minutes: number) => new Date(Date.UTC(2027, 3, 20, 12, minutes))

const ids = (res: { body: any }) => res.body.data.map((sale: { id: string }) => sale.id)

layer(TestServerLive)("sales", (it) => {
  it.effect("get answers every field, money in major units, nulls as null; the list is newest first", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const older = yield* insertSale({
        organizationId: org.organizationId,
        saleNumber: "S-0001",
        createdAt: at(1),
        clientId: client.id,
        businessId: org.businessId,
        externalId: "pos-1",
        notes: "Two prints"
      })
      const walkUp = yield* insertSale({
        organizationId: org.organizationId,
        saleNumber: "S-0002",
        createdAt: at(2),
        currency: "JPY",
        subtotalMinor: null,
        discountAmountMinor: null,
        taxRate: null,
        taxAmountMinor: null,
        totalMinor: null
      })
      const res = yield* get(`/api/v1/sales/${older}`, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        id: older,
        saleNumber: "S-0001",
        businessId: org.businessId,
        clientId: client.id,
        contactId: null,
        channel: "pos",
        externalId: "pos-1",
        saleDate: "2027-04-20",
        currency: "USD",
        status: "completed",
        voidedAt: null,
        voidReason: null,
        taxJurisdiction: null,
        taxInclusive: true,
        subtotal: 82.64,
        discountPercent: null,
        discountAmount: 0,
        taxRate: 8.875,
        taxAmount: 7.36,
        total: 90,
        amountRefunded: 0,
        notes: "Two prints",
        createdAt: "2027-04-20T12:01:00.000Z",
        updatedAt: "2027-04-20T12:01:00.000Z"
      })
      const walk = (yield* get(`/api/v1/sales/${walkUp}`, { key: org.apiKey })).body
      expect(walk).toMatchObject({ clientId: null, businessId: null, externalId: null, currency: "JPY", subtotal: null, discountAmount: null, taxRate: null, taxAmount: null, total: null, amountRefunded: 0 })
      expect(walk.createdAt).toMatch(TIMESTAMP)
      const list = yield* get("/api/v1/sales", { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(ids(list)).toEqual([walkUp, older])
      expect(list.body.pagination).toEqual({ page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false })
    }))

  it.effect("filters status, channel, clientId, businessId, saleDateFrom and saleDateTo (inclusive), together", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const base = { organizationId: org.organizationId }
      const a = yield* insertSale({ ...base, saleNumber: "S-0001", createdAt: at(1), saleDate: "2027-04-01", clientId: client.id })
      const b = yield* insertSale({ ...base, saleNumber: "S-0002", createdAt: at(2), saleDate: "2027-04-15", channel: "storefront", businessId: org.businessId })
      const c = yield* insertSale({
        ...base,
        saleNumber: "S-0003",
        createdAt: at(3),
        saleDate: "2027-04-30",
        status: "voided",
        voidedAt: at(4),
        voidReason: "Mis-rung",
        clientId: client.id
      })
      const d = yield* insertSale({ ...base, saleNumber: "S-0004", createdAt: at(4), saleDate: "2027-05-01", status: "partially-refunded", amountRefundedMinor: 1000 })
      const list = (query: string) => Effect.map(get(`/api/v1/sales?${query}`, { key: org.apiKey }), (res) => {
        expect(res.status).toBe(200)
        return ids(res)
      })
      expect(yield* list("status=voided")).toEqual([c])
      expect(yield* list("status=partially-refunded")).toEqual([d])
      expect(yield* list("status=completed")).toEqual([b, a])
      expect(yield* list("status=refunded")).toEqual([])
      expect(yield* list("channel=storefront")).toEqual([b])
      expect(yield* list("channel=api")).toEqual([])
      expect(yield* list(`clientId=${client.id}`)).toEqual([c, a])
      expect(yield* list(`businessId=${org.businessId}`)).toEqual([b])
      expect(yield* list("saleDateFrom=2027-04-15")).toEqual([d, c, b])
      expect(yield* list("saleDateTo=2027-04-15")).toEqual([b, a])
      expect(yield* list("saleDateFrom=2027-04-15&saleDateTo=2027-04-30")).toEqual([c, b])
      expect(yield* list(`saleDateFrom=2027-04-01&saleDateTo=2027-04-30&clientId=${client.id}&status=completed`)).toEqual([a])
      expect(yield* list(`clientId=${NIL}`)).toEqual([])
      const voided = (yield* get(`/api/v1/sales/${c}`, { key: org.apiKey })).body
      expect(voided).toMatchObject({ status: "voided", voidedAt: "2027-04-20T12:04:00.000Z", voidReason: "Mis-rung" })
      expect((yield* get(`/api/v1/sales/${d}`, { key: org.apiKey })).body.amountRefunded).toBe(10)
      // updatedSince, as on every list.
      expect(yield* list("updatedSince=2027-04-20T12:03:00.000Z")).toEqual([d, c])
    }))

  it.effect("a known filter with a bad value is 400; an unknown parameter is ignored", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (
        const query of [
          "status=open",
          "status=Completed",
          "channel=phone",
          "clientId=not-a-uuid",
          "businessId=42",
          "saleDateFrom=2027-13-01",
          "saleDateTo=yesterday",
          "saleDateFrom=2027-04-20T00:00:00Z",
          "page=0",
          "pageSize=101"
        ]
      ) {
        expectError(yield* get(`/api/v1/sales?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      expect((yield* get("/api/v1/sales?color=blue", { key: org.apiKey })).status).toBe(200)
    }))

  it.effect("pages: pageSize and page, with true totals past the end", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const made: Array<string> = []
      for (let i = 1; i <= 5; i++) {
        made.push(yield* insertSale({ organizationId: org.organizationId, saleNumber: `S-000${i}`, createdAt: at(i) }))
      }
      const newest = [...made].reverse()
      const page2 = yield* get("/api/v1/sales?pageSize=2&page=2", { key: org.apiKey })
      expect(ids(page2)).toEqual(newest.slice(2, 4))
      expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
      const past = yield* get("/api/v1/sales?pageSize=2&page=9", { key: org.apiKey })
      expect(past.body).toEqual({ data: [], pagination: { page: 9, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
      const empty = yield* (yield* TestServer).organization()
      expect((yield* get("/api/v1/sales", { key: empty.apiKey })).body.pagination).toEqual({ page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false })
    }))

  it.effect("needs sales:read (403 without it, 401 without a key)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const sale = yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(1) })
      const payoutsOnly = yield* server.organization(["payouts:read", "payments:read"])
      // The scope is checked before the record is looked for: 403 even for its own organization's sale.
      expectError(yield* get("/api/v1/sales", { key: payoutsOnly.apiKey }), 403, "forbidden")
      expectError(yield* get(`/api/v1/sales/${sale}`, { key: payoutsOnly.apiKey }), 403, "forbidden")
      expectError(yield* get("/api/v1/sales"), 401, "unauthorized")
      const reader = yield* server.organization(["sales:read"])
      expect((yield* get("/api/v1/sales", { key: reader.apiKey })).status).toBe(200)
    }))

  it.effect("another organization's sale is 404, as are a missing and a malformed id", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const other = yield* server.organization()
      const sale = yield* insertSale({ organizationId: owner.organizationId, saleNumber: "S-0001", createdAt: at(1) })
      expectError(yield* get(`/api/v1/sales/${sale}`, { key: other.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/sales", { key: other.apiKey })).body.data).toEqual([])
      expectError(yield* get(`/api/v1/sales/${NIL}`, { key: owner.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/sales/not-a-uuid", { key: owner.apiKey }), 404, "not_found")
    }))

  it.effect("DELETE is 405 sale_not_deletable (refund or void instead), Allow GET, and the sale stays", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const sale = yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(1) })
      const res = yield* del(`/api/v1/sales/${sale}`, { key: org.apiKey })
      expectError(res, 405, "method_not_allowed", "sale_not_deletable")
      expect(res.body.error.message).toMatch(/refund/)
      expect(res.body.error.message).toMatch(/void/)
      expect(res.headers.get("allow")).toBe("GET")
      // Whoever asks, with whatever id: a sale is never deleted.
      expectError(yield* del(`/api/v1/sales/${NIL}`, { key: org.apiKey }), 405, "method_not_allowed", "sale_not_deletable")
      expectError(yield* del(`/api/v1/sales/${sale}`), 405, "method_not_allowed", "sale_not_deletable")
      expect((yield* get(`/api/v1/sales/${sale}`, { key: org.apiKey })).status).toBe(200)
      const [row] = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM sales WHERE id = ${sale}`))
      expect(row.n).toBe(1)
      // Other methods are the route table's plain 405; there is no write of sales.
      const patched = yield* patch(`/api/v1/sales/${sale}`, { notes: "x" }, { key: org.apiKey })
      expectError(patched, 405, "method_not_allowed")
      expect(patched.headers.get("allow")).toBe("GET")
      expect(patched.body.error.details).toBeUndefined()
      const created = yield* request("POST", "/api/v1/sales", { key: org.apiKey, json: {} })
      expectError(created, 405, "method_not_allowed")
      expect(created.headers.get("allow")).toBe("GET")
    }))

  it.effect("GET /payments?saleId= lists the sale's payment", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const client = yield* newClient(org.apiKey)
      const sale = yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(1), clientId: client.id })
      const other = yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0002", createdAt: at(2) })
      const payment = randomUUID()
      yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO payments ${
          sql.insert({
            id: payment,
            organizationId: org.organizationId,
            clientId: client.id,
            saleId: sale,
            amountMinor: 9000,
            currency: "USD",
            receivedDate: "2027-04-20",
            method: "cash",
            status: "succeeded",
            kind: "payment"
          })
        }`))
      const res = yield* get(`/api/v1/payments?saleId=${sale}`, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body.data).toHaveLength(1)
      expect(res.body.data[0]).toMatchObject({ id: payment, saleId: sale, invoiceId: null, clientId: client.id, amount: 90, kind: "payment" })
      expect((yield* get(`/api/v1/payments?saleId=${other}`, { key: org.apiKey })).body.data).toEqual([])
      expectError(yield* get("/api/v1/payments?saleId=nope", { key: org.apiKey }), 400, "invalid_request")
      // A payment names a sale of its organization: the composite foreign key refuses another's.
      const stranger = yield* server.organization()
      const refused = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO payments ${
          sql.insert({
            id: randomUUID(),
            organizationId: stranger.organizationId,
            saleId: sale,
            amountMinor: 100,
            currency: "USD",
            receivedDate: "2027-04-20",
            method: "cash",
            status: "succeeded",
            kind: "payment"
          })
        }`).pipe(Effect.flip))
      expect(constraintOf(refused)).toBe("payments_sale_fk")
    }))

  it.effect("the sale number and an external id are unique per organization", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const other = yield* server.organization()
      yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(1), externalId: "pos-1" })
      // Another organization may have the same number and external id.
      yield* insertSale({ organizationId: other.organizationId, saleNumber: "S-0001", createdAt: at(1), externalId: "pos-1" })
      const sameNumber = yield* Effect.flip(insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(2) }))
      const sameExternal = yield* Effect.flip(insertSale({ organizationId: org.organizationId, saleNumber: "S-0002", createdAt: at(2), externalId: "pos-1" }))
      expect(constraintOf(sameNumber)).toBe("sales_number_unique")
      expect(constraintOf(sameExternal)).toBe("sales_external_id_unique")
      // Sales without an external id are many.
      yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0003", createdAt: at(3) })
      yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0004", createdAt: at(4) })
      expect((yield* get("/api/v1/sales", { key: org.apiKey })).body.pagination.total).toBe(3)
    }))

  it.effect("books entries: a sale's lines are stored and balance; a line of 0 and another organization's sale are refused", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const sale = yield* insertSale({ organizationId: org.organizationId, saleNumber: "S-0001", createdAt: at(1) })
      const line = (organizationId: string, entry: { readonly account: string; readonly side: string; readonly amount: number }) =>
        server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`INSERT INTO books_entries ${
            sql.insert({ id: randomUUID(), organizationId, saleId: sale, cause: "sale", account: entry.account, side: entry.side, amountMinor: entry.amount, currency: "USD" })
          }`))
      for (const entry of saleEntries({ subtotal: 8264, taxAmount: 736, total: 9000 })) yield* line(org.organizationId, entry)
      const [balance] = yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ readonly debit: number; readonly credit: number }>`SELECT
          sum(amount_minor) FILTER (WHERE side = 'debit')::int AS debit, sum(amount_minor) FILTER (WHERE side = 'credit')::int AS credit
          FROM books_entries WHERE sale_id = ${sale}`))
      expect(balance).toEqual({ debit: 9000, credit: 9000 })
      const zero = yield* Effect.flip(line(org.organizationId, { account: "cash", side: "debit", amount: 0 }))
      expect(pgField(zero, "code")).toBe("23514")
      const stranger = yield* server.organization()
      expect(constraintOf(yield* Effect.flip(line(stranger.organizationId, { account: "cash", side: "debit", amount: 1 })))).toBe("books_entries_sale_fk")
    }))
})
