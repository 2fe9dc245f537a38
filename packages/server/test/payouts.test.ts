import { expect, layer } from "@effect/vitest"
import { del, expectError, get, NIL, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect, Predicate } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"

/**
 * Payouts are read-only over the API and arrive through the import (a later step), so the fixtures are
 * rows written with SQL as the import will write them: money in minor units, unknown totals null.
 */
interface PayoutFixture {
  readonly organizationId: string
  readonly processorPayoutId: string
  readonly createdAt: Date
  readonly [column: string]: unknown
}

/** A payout in transit, not reconciled: every total and the count unknown (null). */
const insertPayout = (fixture: PayoutFixture) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const id = randomUUID()
    yield* server.withSql(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO payouts ${
        sql.insert({
          id,
          amountMinor: 125_050,
          currency: "USD",
          arrivalDate: "2027-04-22",
          status: "in_transit",
          type: "bank_account",
          automatic: true,
          updatedAt: fixture.createdAt,
          ...fixture
        })
      }`))
    return id
  })

/** A reconciled payout whose identity holds: 1300.00 − 35.00 − 10.00 − 4.50 = 1250.50. */
const RECONCILED = {
  status: "paid",
  grossTotalMinor: 130_000,
  feeTotalMinor: 3_500,
  refundTotalMinor: 1_000,
  disputeTotalMinor: 450,
  paymentCount: 12,
  lastReconciledAt: new Date(Date.UTC(2027, 3, 23, 8, 0))
}

const at = (minutes: number) => new Date(Date.UTC(2027, 3, 20, 12, minutes))

const constraintViolated = (error: unknown): unknown =>
  Predicate.hasProperty(error, "reason") && Predicate.hasProperty(error.reason, "cause") && Predicate.hasProperty(error.reason.cause, "code")
    ? error.reason.cause.code
    : undefined

const ids = (res: { body: any }) => res.body.data.map((payout: { id: string }) => payout.id)

layer(TestServerLive)("payouts", (it) => {
  it.effect("an unreconciled payout's totals and paymentCount are null, never 0; a reconciled one's are numbers, 0 included", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const open = yield* insertPayout({ organizationId: org.organizationId, processorPayoutId: "po_1", createdAt: at(1) })
      const res = yield* get(`/api/v1/payouts/${open}`, { key: org.apiKey })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        id: open,
        processorPayoutId: "po_1",
        amount: 1250.5,
        currency: "USD",
        arrivalDate: "2027-04-22",
        status: "in_transit",
        type: "bank_account",
        automatic: true,
        description: null,
        bankAccountLast4: null,
        bankAccountName: null,
        grossTotal: null,
        feeTotal: null,
        refundTotal: null,
        disputeTotal: null,
        unattributedTotal: null,
        paymentCount: null,
        lastReconciledAt: null,
        failureCode: null,
        failureMessage: null,
        createdAt: "2027-04-20T12:01:00.000Z",
        updatedAt: "2027-04-20T12:01:00.000Z"
      })
      // The key is there with null, in the list too.
      expect(res.text).toContain(`"paymentCount":null`)
      const empty = yield* insertPayout({
        organizationId: org.organizationId,
        processorPayoutId: "po_2",
        createdAt: at(2),
        amountMinor: 0,
        automatic: false,
        status: "paid",
        grossTotalMinor: 0,
        feeTotalMinor: 0,
        refundTotalMinor: 0,
        disputeTotalMinor: 0,
        unattributedTotalMinor: 0,
        paymentCount: 0,
        lastReconciledAt: at(3),
        description: "Manual",
        bankAccountLast4: "6789",
        bankAccountName: "Operating"
      })
      const zero = (yield* get(`/api/v1/payouts/${empty}`, { key: org.apiKey })).body
      expect(zero).toMatchObject({ grossTotal: 0, feeTotal: 0, refundTotal: 0, disputeTotal: 0, unattributedTotal: 0, paymentCount: 0, amount: 0, bankAccountLast4: "6789" })
      expect(zero.lastReconciledAt).toMatch(TIMESTAMP)
      const reconciled = yield* insertPayout({ organizationId: org.organizationId, processorPayoutId: "po_3", createdAt: at(3), ...RECONCILED })
      expect((yield* get(`/api/v1/payouts/${reconciled}`, { key: org.apiKey })).body).toMatchObject({
        grossTotal: 1300,
        feeTotal: 35,
        refundTotal: 10,
        disputeTotal: 4.5,
        unattributedTotal: null,
        paymentCount: 12,
        lastReconciledAt: "2027-04-23T08:00:00.000Z"
      })
      const list = yield* get("/api/v1/payouts", { key: org.apiKey })
      expect(ids(list)).toEqual([reconciled, empty, open])
      expect(list.body.data[2]).toMatchObject({ grossTotal: null, paymentCount: null })
      expect(list.body.pagination).toMatchObject({ total: 3, totalPages: 1 })
    }))

  it.effect("the database refuses totals on an unreconciled payout and unattributedTotal on an automatic one", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const base = { organizationId: org.organizationId, createdAt: at(1) }
      expect(constraintViolated(yield* Effect.flip(insertPayout({ ...base, processorPayoutId: "po_a", paymentCount: 0 })))).toBe("23514")
      expect(constraintViolated(yield* Effect.flip(insertPayout({ ...base, processorPayoutId: "po_b", grossTotalMinor: 0 })))).toBe("23514")
      expect(constraintViolated(yield* Effect.flip(insertPayout({ ...base, processorPayoutId: "po_c", ...RECONCILED, unattributedTotalMinor: 0 })))).toBe("23514")
      yield* insertPayout({ ...base, processorPayoutId: "po_d" })
      expect(constraintViolated(yield* Effect.flip(insertPayout({ ...base, processorPayoutId: "po_d" })))).toBe("23505")
      // Another organization may have the same processor id.
      const other = yield* (yield* TestServer).organization()
      yield* insertPayout({ ...base, organizationId: other.organizationId, processorPayoutId: "po_d" })
    }))

  it.effect("filters status, arrivalDateFrom and arrivalDateTo (inclusive), reconciled=true|false, together", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const base = { organizationId: org.organizationId }
      const a = yield* insertPayout({ ...base, processorPayoutId: "po_a", createdAt: at(1), arrivalDate: "2027-04-01", ...RECONCILED })
      const b = yield* insertPayout({ ...base, processorPayoutId: "po_b", createdAt: at(2), arrivalDate: "2027-04-15" })
      const c = yield* insertPayout({
        ...base,
        processorPayoutId: "po_c",
        createdAt: at(3),
        arrivalDate: "2027-04-30",
        status: "failed",
        failureCode: "account_closed",
        failureMessage: "The bank account is closed"
      })
      const d = yield* insertPayout({ ...base, processorPayoutId: "po_d", createdAt: at(4), arrivalDate: null, status: "pending" })
      const list = (query: string) => Effect.map(get(`/api/v1/payouts?${query}`, { key: org.apiKey }), (res) => {
        expect(res.status).toBe(200)
        return ids(res)
      })
      expect(yield* list("status=paid")).toEqual([a])
      expect(yield* list("status=in_transit")).toEqual([b])
      expect(yield* list("status=failed")).toEqual([c])
      expect(yield* list("status=canceled")).toEqual([])
      expect(yield* list("reconciled=true")).toEqual([a])
      expect(yield* list("reconciled=false")).toEqual([d, c, b])
      expect(yield* list("arrivalDateFrom=2027-04-15")).toEqual([c, b])
      expect(yield* list("arrivalDateTo=2027-04-15")).toEqual([b, a])
      expect(yield* list("arrivalDateFrom=2027-04-15&arrivalDateTo=2027-04-15")).toEqual([b])
      expect(yield* list("arrivalDateFrom=2027-04-01&arrivalDateTo=2027-04-30&reconciled=false")).toEqual([c, b])
      expect(yield* list("arrivalDateTo=2027-04-30&status=paid&reconciled=false")).toEqual([])
      expect(yield* list("updatedSince=2027-04-20T12:03:00.000Z")).toEqual([d, c])
      expect((yield* get(`/api/v1/payouts/${c}`, { key: org.apiKey })).body).toMatchObject({ failureCode: "account_closed", failureMessage: "The bank account is closed" })
      expect((yield* get(`/api/v1/payouts/${d}`, { key: org.apiKey })).body.arrivalDate).toBeNull()
    }))

  it.effect("a known filter with a bad value is 400", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      for (
        const query of [
          "status=settled",
          "status=PAID",
          "reconciled=yes",
          "reconciled=1",
          "reconciled=",
          "arrivalDateFrom=2027-02-30",
          "arrivalDateTo=tomorrow",
          "page=1.5",
          "pageSize=0"
        ]
      ) {
        expectError(yield* get(`/api/v1/payouts?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      expect((yield* get("/api/v1/payouts?reconciledish=true", { key: org.apiKey })).status).toBe(200)
    }))

  it.effect("pages", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const made: Array<string> = []
      for (let i = 1; i <= 3; i++) made.push(yield* insertPayout({ organizationId: org.organizationId, processorPayoutId: `po_${i}`, createdAt: at(i) }))
      const page = yield* get("/api/v1/payouts?pageSize=2&page=2", { key: org.apiKey })
      expect(ids(page)).toEqual([made[0]])
      expect(page.body.pagination).toMatchObject({ page: 2, pageSize: 2, total: 3, totalPages: 2 })
    }))

  it.effect("needs payouts:read; another organization's payout is 404; there is no write", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const payout = yield* insertPayout({ organizationId: org.organizationId, processorPayoutId: "po_1", createdAt: at(1) })
      const salesOnly = yield* server.organization(["sales:read", "payments:read"])
      expectError(yield* get("/api/v1/payouts", { key: salesOnly.apiKey }), 403, "forbidden")
      expectError(yield* get(`/api/v1/payouts/${payout}`, { key: salesOnly.apiKey }), 403, "forbidden")
      expectError(yield* get("/api/v1/payouts"), 401, "unauthorized")
      const other = yield* server.organization(["payouts:read"])
      expectError(yield* get(`/api/v1/payouts/${payout}`, { key: other.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/payouts", { key: other.apiKey })).body.data).toEqual([])
      expectError(yield* get(`/api/v1/payouts/${NIL}`, { key: org.apiKey }), 404, "not_found")
      const deleted = yield* del(`/api/v1/payouts/${payout}`, { key: org.apiKey })
      expectError(deleted, 405, "method_not_allowed")
      expect(deleted.headers.get("allow")).toBe("GET")
      expect((yield* get(`/api/v1/payouts/${payout}`, { key: org.apiKey })).status).toBe(200)
    }))
})
