import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { amountPaid, type InvoiceFacts, InvoiceStatuses, isOverdue, type MoneyRecord, settle } from "./Settlement.js"

// ---------------------------------------------------------------------------------------------------
// Generators. Times are minutes after a fixed moment, drawn from a small range so that records often
// share a createdAt (the rule breaks such ties by id, so their input order must not matter). Ids are
// fixed-width so that they sort as written.
// ---------------------------------------------------------------------------------------------------

const T0 = Date.UTC(2024, 0, 1)
const at = (minute: number): Date => new Date(T0 + minute * 60_000)

const recordStatus = fc.constantFrom("pending", "processing", "succeeded", "failed") as fc.Arbitrary<MoneyRecord["status"]>

/** Records without ids: an amount (payments positive, refunds negative), a status and a minute. */
const rawRecord = fc.record({
  amount: fc.oneof(fc.integer({ min: 1, max: 6_000 }), fc.integer({ min: -3_000, max: -1 })),
  status: fc.oneof({ weight: 3, arbitrary: fc.constant<MoneyRecord["status"]>("succeeded") }, { weight: 1, arbitrary: recordStatus }),
  minute: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 3 }))
})

const withIds = (raws: ReadonlyArray<{ amount: number; status: MoneyRecord["status"]; minute: number }>, prefix = "r"): Array<MoneyRecord> =>
  raws.map((r, i) => ({ id: `${prefix}${String(i).padStart(3, "0")}`, amount: r.amount, status: r.status, createdAt: at(r.minute) }))

const records = fc.array(rawRecord, { maxLength: 12 }).map((raws) => withIds(raws))

/** An invoice total in minor units; 0 is common enough to be seen. */
const total = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10_000 }))

const facts = fc.record({
  total,
  sentAt: fc.option(fc.integer({ min: -60, max: 0 }).map(at), { nil: null }),
  voidedAt: fc.option(fc.integer({ min: 31, max: 60 }).map(at), { nil: null })
})

/** Records and a permutation of them. */
const recordsAndShuffle = records.chain((rs) =>
  fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length, maxLength: rs.length }))
)

// ---------------------------------------------------------------------------------------------------
// Oracles, written from the words.
// ---------------------------------------------------------------------------------------------------

const succeeded = (rs: ReadonlyArray<MoneyRecord>) => rs.filter((r) => r.status === "succeeded")

/** Rule 3: the status from (voided?, sent?, money), nothing else. */
const expectedStatus = (f: InvoiceFacts, rs: ReadonlyArray<MoneyRecord>) => {
  if (f.voidedAt !== null) return "void"
  if (f.sentAt === null) return "draft"
  const paid = succeeded(rs).reduce((s, r) => s + r.amount, 0)
  return f.total - paid <= 0 ? "paid" : "sent"
}

/**
 * Rule 3: paidAt is the createdAt of the record after which the balance went to <= 0 and stayed there
 * (the moment of sending if it was <= 0 from the start). Records in order of (createdAt, id).
 */
const expectedPaidAt = (f: InvoiceFacts & { sentAt: Date }, rs: ReadonlyArray<MoneyRecord>): Date | null => {
  const ordered = succeeded(rs)
    .map((r) => ({ key: `${r.createdAt.toISOString()}|${r.id}`, r }))
    .sort((a, b) => a.key.localeCompare(b.key))
    .map(({ r }) => r)
  // balances[k] = the balance after the first k records
  const balances = [f.total]
  for (const r of ordered) balances.push(balances[balances.length - 1] - r.amount)
  if (balances[balances.length - 1] > 0) return null
  let k = balances.length - 1
  while (k > 0 && balances[k - 1] <= 0) k--
  return k === 0 ? f.sentAt : ordered[k - 1].createdAt
}

describe("amountPaid and balanceDue (rule 2)", () => {
  // amountPaid = Σ of the succeeded records (payments and refunds); balanceDue = total − amountPaid.
  prop("sum the succeeded records only", [facts, records], ([f, rs]) => {
    const expected = rs.filter((r) => r.status === "succeeded").reduce((s, r) => s + r.amount, 0)
    expect(amountPaid(rs)).toBe(expected)
    const s = settle(f, rs)
    expect(s.amountPaid).toBe(expected)
    expect(s.balanceDue).toBe(f.total - expected)
  })

  // Only succeeded records move money: adding pending, processing or failed records changes nothing.
  prop("pending, processing and failed records change nothing", [facts, records, fc.array(rawRecord.filter((r) => r.status !== "succeeded"), { maxLength: 6 })], ([f, rs, others]) => {
    expect(settle(f, [...rs, ...withIds(others, "x")])).toEqual(settle(f, rs))
    expect(amountPaid(withIds(others, "x"))).toBe(0)
  })
})

describe("status and paidAt (rule 3)", () => {
  // The status is a function of (sent or not, voided or not, the payments), whatever their order.
  prop("status is a function of sent, voided and the money", [facts, records], ([f, rs]) => {
    expect(settle(f, rs).status).toBe(expectedStatus(f, rs))
  })

  // The order of the records never matters, for any field (ties in createdAt are broken by id).
  prop("does not depend on the order of the records", [facts, recordsAndShuffle], ([f, [rs, shuffled]]) => {
    expect(settle(f, shuffled)).toEqual(settle(f, rs))
  }, { fastCheck: { numRuns: 500 } })

  // paidAt is set exactly when the status is paid.
  prop("paidAt is non-null iff the status is paid", [facts, records], ([f, rs]) => {
    const s = settle(f, rs)
    expect(s.paidAt !== null).toBe(s.status === "paid")
  })

  // paidAt is the createdAt of the record after which the balance went to <= 0 and stayed there.
  prop("paidAt is the moment the balance was settled for good", [facts, recordsAndShuffle], ([f, [rs, shuffled]]) => {
    const sentAt = f.sentAt ?? at(0)
    const s = settle({ ...f, sentAt, voidedAt: null }, shuffled)
    expect(s.paidAt).toEqual(expectedPaidAt({ ...f, sentAt }, rs))
  }, { fastCheck: { numRuns: 500 } })

  // A refund that reopens a balance moves the invoice back to sent and clears paidAt; paying again
  // makes it paid at the new payment.
  prop("a refund that reopens the balance gives sent and no paidAt", [fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 1, max: 100_000 })], ([t, over, refund]) => {
    const f = { total: t, sentAt: at(0), voidedAt: null }
    const payment: MoneyRecord = { id: "a", amount: t + over, status: "succeeded", createdAt: at(1) }
    expect(settle(f, [payment])).toEqual({ amountPaid: t + over, balanceDue: t - (t + over), status: "paid", paidAt: at(1) })
    const back: MoneyRecord = { id: "b", amount: -refund, status: "succeeded", createdAt: at(2) }
    const reopened = over - refund < 0
    const afterRefund = settle(f, [back, payment])
    expect(afterRefund.status).toBe(reopened ? "sent" : "paid")
    expect(afterRefund.paidAt).toEqual(reopened ? null : at(1))
    const again: MoneyRecord = { id: "c", amount: refund, status: "succeeded", createdAt: at(3) }
    expect(settle(f, [again, back, payment]).paidAt).toEqual(reopened ? at(3) : at(1))
  })

  // A sent invoice whose total is 0 is paid at the moment of sending, with or without records that
  // do not count.
  prop("a total of 0 is paid when sent", [fc.integer({ min: -100, max: 100 }).map(at), fc.array(rawRecord.filter((r) => r.status !== "succeeded"), { maxLength: 4 })], ([sentAt, others]) => {
    expect(settle({ total: 0, sentAt, voidedAt: null }, withIds(others))).toEqual({ amountPaid: 0, balanceDue: 0, status: "paid", paidAt: sentAt })
  })

  // A draft and a void invoice are never paid, whatever money is on them.
  prop("draft and void have no paidAt", [facts, records], ([f, rs]) => {
    const s = settle({ ...f, voidedAt: f.voidedAt ?? at(40) }, rs)
    expect(s.status).toBe("void")
    expect(s.paidAt).toBeNull()
    const d = settle({ ...f, sentAt: null, voidedAt: null }, rs)
    expect(d.status).toBe("draft")
    expect(d.paidAt).toBeNull()
  })

  it("examples", () => {
    const sent = { total: 1000, sentAt: at(0), voidedAt: null }
    const pay = (id: string, amount: number, minute: number, status: MoneyRecord["status"] = "succeeded"): MoneyRecord => ({ id, amount, status, createdAt: at(minute) })
    expect(settle(sent, [])).toEqual({ amountPaid: 0, balanceDue: 1000, status: "sent", paidAt: null })
    expect(settle(sent, [pay("a", 400, 1), pay("b", 600, 2)])).toEqual({ amountPaid: 1000, balanceDue: 0, status: "paid", paidAt: at(2) })
    expect(settle(sent, [pay("a", 1000, 1, "failed")]).status).toBe("sent")
    // paid at 1, reopened at 2, paid again at 3
    expect(settle(sent, [pay("c", 500, 3), pay("b", -500, 2), pay("a", 1000, 1)])).toMatchObject({ status: "paid", paidAt: at(3) })
    // overpaid, then a partial refund that leaves it paid: still paid at the first payment
    expect(settle(sent, [pay("a", 1200, 1), pay("b", -200, 2)])).toMatchObject({ status: "paid", paidAt: at(1), balanceDue: 0 })
  })
})

describe("overdue (rule 3)", () => {
  const date = fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 3 })).map((d) => new Date(T0 + d * 86_400_000).toISOString().slice(0, 10))
  const status = fc.constantFrom(...InvoiceStatuses)

  // overdue = status sent, dueDate strictly before today (compared as calendar days), balance > 0.
  // (the due date is often within a day or two of today, so that "due today" is tried)
  const near = fc.tuple(date, fc.oneof(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -3_000, max: 3_000 })))
    .map(([today, offset]) => ({ today, dueDate: new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10) }))
  prop("is exactly: sent, due before today, balance owing", [status, near, fc.integer({ min: -1000, max: 1000 })], ([s, { dueDate, today }, balanceDue]) => {
    const before = Date.parse(`${dueDate}T00:00:00Z`) < Date.parse(`${today}T00:00:00Z`)
    expect(isOverdue({ status: s, dueDate, balanceDue }, today)).toBe(s === "sent" && before && balanceDue > 0)
  })

  // Whatever happened to an invoice, overdue is never true unless settle says it is sent and owing.
  prop("is never true for a draft, paid or void invoice", [facts, records, date, date], ([f, rs, dueDate, today]) => {
    const s = settle(f, rs)
    const overdue = isOverdue({ status: s.status, dueDate, balanceDue: s.balanceDue }, today)
    if (s.status !== "sent") expect(overdue).toBe(false)
    if (overdue) expect(s.balanceDue).toBeGreaterThan(0)
  })

  it("examples", () => {
    expect(isOverdue({ status: "sent", dueDate: "2024-05-01", balanceDue: 1 }, "2024-05-01")).toBe(false) // due today
    expect(isOverdue({ status: "sent", dueDate: "2024-04-30", balanceDue: 1 }, "2024-05-01")).toBe(true)
    expect(isOverdue({ status: "sent", dueDate: "2024-04-30", balanceDue: 0 }, "2024-05-01")).toBe(false)
    expect(isOverdue({ status: "paid", dueDate: "2023-12-31", balanceDue: 1 }, "2024-05-01")).toBe(false)
    expect(isOverdue({ status: "written_off", dueDate: "2023-12-31", balanceDue: 1 }, "2024-05-01")).toBe(false)
  })
})
