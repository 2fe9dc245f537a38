import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { checkPayment, type PaymentRequest } from "../Payments/Rules.js"
import type { Refusal } from "../Common/Refusal.js"
import { checkChangeable, checkDeletable, decideMove, decideReissue, type Move } from "./Moves.js"
import { type InvoiceStatusValue, InvoiceStatuses, type MoneyRecord, settle } from "./Settlement.js"

// ---------------------------------------------------------------------------------------------------
// The move table of rule 4, written out independently of Moves.ts.
// ---------------------------------------------------------------------------------------------------

type Requested = InvoiceStatusValue | undefined
type Expected = Move | Refusal["kind"] | "conflict: refund first"

/** What a PATCH naming `requested` must do to an invoice in `status` with `money` on it. */
const table = (status: InvoiceStatusValue, requested: Requested, money: number): Expected => {
  if (status === "void") return "conflict" // void is terminal: any PATCH is 409
  if (requested === "paid" || requested === "written_off" || requested === "draft") return "invalid" // set by the system only
  if (requested === undefined) return "none" // another field: allowed
  if (requested === "sent") return status === "draft" ? "send" : status === "sent" ? "none" : "conflict"
  // requested void: from draft or sent with no money; with money, refund first
  if (status === "draft" || status === "sent") return money === 0 ? "void" : "conflict: refund first"
  return status === "paid" ? "conflict: refund first" : "conflict"
}

const outcome = (result: Result.Result<Move, Refusal>): Expected =>
  Result.isSuccess(result) ? result.success : result.failure.kind

const requested = fc.constantFrom<Requested>(undefined, ...InvoiceStatuses)
const status = fc.constantFrom(...InvoiceStatuses)
const money = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: -1_000, max: -1 }))

describe("the move table (rule 4)", () => {
  const checkCell = (s: InvoiceStatusValue, r: Requested, m: number) => {
    const expected = table(s, r, m)
    const result = decideMove({ status: s, amountPaid: m }, r)
    if (expected === "conflict: refund first") {
      expect(outcome(result), `${s} + PATCH ${r} with ${m}`).toBe("conflict")
      if (Result.isFailure(result)) expect(result.failure.message).toMatch(/refund/i)
    } else {
      expect(outcome(result), `${s} + PATCH ${r} with ${m}`).toBe(expected)
    }
  }

  // decideMove follows the table cell by cell, every cell (with no money, money, and a negative
  // amount); a "refund first" conflict says so in its message.
  it("decideMove is the table, every cell", () => {
    for (const s of InvoiceStatuses) for (const r of [undefined, ...InvoiceStatuses]) for (const m of [0, 1, 2_500, -1]) checkCell(s, r, m)
  })

  // The same for any amount of money on the invoice.
  prop("decideMove is the table, any money", [status, requested, money], ([s, r, m]) => checkCell(s, r, m))

  // paid, written_off and draft are never accepted from a client: 400 invalid, except on a void
  // invoice, which refuses every PATCH with 409 first.
  prop("paid, written_off and draft are never accepted", [status, fc.constantFrom<Requested>("paid", "written_off", "draft"), money], ([s, r, m]) => {
    const result = decideMove({ status: s, amountPaid: m }, r)
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) expect(result.failure.kind).toBe(s === "void" ? "conflict" : "invalid")
  })

  // void is terminal: nothing about a void invoice can change.
  prop("void is terminal", [requested, money], ([r, m]) => {
    expect(outcome(decideMove({ status: "void", amountPaid: m }, r))).toBe("conflict")
    expect(Result.isFailure(checkChangeable({ status: "void", amountPaid: m }))).toBe(true)
  })

  // Every other status can change (the PATCH of another field is allowed).
  prop("every status but void is changeable", [status.filter((s) => s !== "void"), money], ([s, m]) => {
    expect(Result.isSuccess(checkChangeable({ status: s, amountPaid: m }))).toBe(true)
  })

  // Voiding an invoice with money on it is a 409 that says to refund first.
  prop("void with money is a conflict that says to refund first", [fc.constantFrom<InvoiceStatusValue>("sent", "paid"), money.filter((m) => m !== 0)], ([s, m]) => {
    const result = decideMove({ status: s, amountPaid: m }, "void")
    expect(Result.isFailure(result) && result.failure.kind).toBe("conflict")
    if (Result.isFailure(result)) expect(result.failure.message).toMatch(/refund/i)
  })

  // Reissue takes a sent invoice without money (voiding it) or a void one (nothing to do), once.
  prop("reissue", [status, fc.oneof(fc.constant(0), money), fc.boolean()], ([s, m, replaced]) => {
    const result = decideReissue({ status: s, amountPaid: m, replaced })
    const expected = replaced ? "conflict" : s === "void" ? "none" : s === "sent" && m === 0 ? "void" : "conflict"
    expect(Result.isSuccess(result) ? result.success : result.failure.kind).toBe(expected)
    if (!replaced && s === "sent" && m !== 0 && Result.isFailure(result)) expect(result.failure.message).toMatch(/refund/i)
  })

  // Only a draft that no payment ever touched can be deleted.
  prop("delete: drafts without payments only", [status, fc.nat({ max: 5 })], ([s, paymentCount]) => {
    expect(Result.isSuccess(checkDeletable({ status: s, paymentCount }))).toBe(s === "draft" && paymentCount === 0)
  })
})

// ---------------------------------------------------------------------------------------------------
// A model-based walk: random sequences of PATCHes, payments, refunds, adjustments and reissues on one
// invoice. What happens is decided by the real rules (decideMove, decideReissue, checkPayment, settle);
// the walk checks that the status only ever changes along the table's moves.
// ---------------------------------------------------------------------------------------------------

type Op =
  | { readonly op: "patch"; readonly status: Requested; readonly total: number | undefined }
  | { readonly op: "pay"; readonly amount: number; readonly outcome: MoneyRecord["status"]; readonly foreign: boolean }
  | { readonly op: "refund"; readonly pick: number; readonly amount: number }
  | { readonly op: "adjust"; readonly amount: number }
  | { readonly op: "reissue" }

const amount = fc.oneof(fc.integer({ min: 1, max: 3_000 }), fc.constantFrom(500, 1_000))

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("patch" as const), status: requested, total: fc.option(fc.constantFrom(0, 500, 1_000, 2_500), { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("pay" as const), amount, outcome: fc.constantFrom<MoneyRecord["status"]>("succeeded", "succeeded", "succeeded", "failed", "pending"), foreign: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("refund" as const), pick: fc.nat({ max: 10 }), amount }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("adjust" as const), amount: fc.integer({ min: -2_000, max: 2_000 }).filter((a) => a !== 0) }) },
  { weight: 1, arbitrary: fc.constant({ op: "reissue" as const }) }
)

interface Model {
  total: number
  sentAt: Date | null
  voidedAt: Date | null
  replaced: boolean
  records: Array<MoneyRecord>
  /** Succeeded payments and how much of each was refunded. */
  payments: Array<{ id: string; amount: number; refunded: number }>
  minute: number
}

const INVOICE = "inv-1"
const CLIENT = "client-1"
const CURRENCY = "USD"

/** Every status change the walk saw, as "from→to by op", to check the walk reached the table's moves. */
const seen = new Set<string>()

/** The status changes rule 4 allows, and what may cause each. */
const allowed = (from: InvoiceStatusValue, to: InvoiceStatusValue, cause: string, moneyBefore: number, total: number): boolean => {
  switch (`${from}→${to}`) {
    case "draft→sent":
      return cause === "patch sent"
    case "draft→paid": // sending an invoice whose total is 0 settles it at once
      return cause === "patch sent" && total === 0
    case "draft→void":
      return cause === "patch void"
    case "sent→void":
      return (cause === "patch void" || cause === "reissue") && moneyBefore === 0
    case "sent→paid":
      return cause === "pay" || cause === "adjust"
    case "paid→sent":
      return cause === "refund" || cause === "adjust"
    default:
      return false
  }
}

/** Runs the walk, checking every step; returns the status changes it made, as "from→to by cause". */
const runWalk = (total: number, ops: ReadonlyArray<Op>): Array<string> => {
  const m: Model = { total, sentAt: null, voidedAt: null, replaced: false, records: [], payments: [], minute: 0 }
  const view = () => settle({ total: m.total, sentAt: m.sentAt, voidedAt: m.voidedAt }, m.records)
  const now = () => new Date(Date.UTC(2024, 0, 1) + m.minute * 60_000)
  let everVoid = false
  let negativeAdjustment = false
  const changes: Array<string> = []

  ops.forEach((o, step) => {
    m.minute += step % 3 === 0 ? 0 : 1 // some records share a createdAt
    const before = view()
    const state = { status: before.status, amountPaid: before.amountPaid }
    const invoice = { id: INVOICE, status: before.status, clientId: CLIENT, currency: CURRENCY, amountPaid: before.amountPaid }
    let cause: string = o.op

    switch (o.op) {
      case "patch": {
        cause = `patch ${o.status ?? "other"}`
        const result = decideMove(state, o.status)
        if (before.status === "void") expect(Result.isFailure(result) && result.failure.kind).toBe("conflict")
        if (o.status === "paid" || o.status === "written_off" || o.status === "draft") {
          expect(Result.isFailure(result) && result.failure.kind).toBe(before.status === "void" ? "conflict" : "invalid")
        }
        if (o.status === "void" && before.amountPaid !== 0) {
          expect(Result.isFailure(result) && result.failure.kind).toBe("conflict")
          if (Result.isFailure(result)) expect(result.failure.message).toMatch(/refund/i)
        }
        if (Result.isSuccess(result)) {
          if (result.success === "send") m.sentAt = now()
          if (result.success === "void") m.voidedAt = now()
          // the other fields of the PATCH: the lines (and so the total) change only on a draft here
          if (o.total !== undefined && before.status === "draft") m.total = o.total
        }
        break
      }
      case "pay": {
        const request: PaymentRequest = { kind: "payment", amount: o.amount, currency: CURRENCY, clientId: o.foreign ? "client-2" : CLIENT, refundOfId: undefined }
        const result = checkPayment(request, invoice, undefined)
        if (o.foreign) expect(Result.isFailure(result) && result.failure.detail).toBe("payment_client_mismatch")
        else if (before.status !== "sent" && before.status !== "paid") {
          expect(Result.isFailure(result) && result.failure.detail).toBe("payment_target_not_collectible")
        } else expect(Result.isSuccess(result)).toBe(true)
        if (Result.isSuccess(result)) {
          const id = `p${String(step).padStart(3, "0")}`
          m.records.push({ id, amount: o.amount, status: o.outcome, createdAt: now() })
          if (o.outcome === "succeeded") m.payments.push({ id, amount: o.amount, refunded: 0 })
        }
        break
      }
      case "refund": {
        const target = m.payments.length === 0 ? undefined : m.payments[o.pick % m.payments.length]
        const request: PaymentRequest = { kind: "refund", amount: -o.amount, currency: CURRENCY, clientId: CLIENT, refundOfId: target?.id ?? "nothing" }
        const original = target && { kind: "payment", status: "succeeded", invoiceId: INVOICE, amount: target.amount, refunded: target.refunded }
        const result = checkPayment(request, invoice, original)
        if (Result.isSuccess(result) && target !== undefined) {
          m.records.push({ id: `r${String(step).padStart(3, "0")}`, amount: -o.amount, status: "succeeded", createdAt: now() })
          target.refunded += o.amount
        } else {
          expect(Result.isFailure(result)).toBe(true)
        }
        break
      }
      case "adjust": {
        const request: PaymentRequest = { kind: "adjustment", amount: o.amount, currency: CURRENCY, clientId: CLIENT, refundOfId: undefined }
        if (Result.isSuccess(checkPayment(request, invoice, undefined))) {
          m.records.push({ id: `a${String(step).padStart(3, "0")}`, amount: o.amount, status: "succeeded", createdAt: now() })
          if (o.amount < 0) negativeAdjustment = true
        }
        break
      }
      case "reissue": {
        const result = decideReissue({ ...state, replaced: m.replaced })
        if (Result.isSuccess(result)) {
          m.replaced = true
          if (result.success === "void") m.voidedAt = now()
        }
        break
      }
    }

    const after = view()
    if (after.status !== before.status) {
      changes.push(`${before.status}→${after.status} by ${cause}`)
      expect(allowed(before.status, after.status, cause, before.amountPaid, m.total), `${before.status}→${after.status} by ${cause}`).toBe(true)
    }
    // void is terminal; paidAt goes with paid; refunds never exceed their payment; the money on the
    // invoice never goes below 0 through payments and refunds (a negative adjustment followed by a full
    // refund of a payment can take it below 0: the refund check bounds a refund by its payment only)
    if (everVoid) expect(after.status).toBe("void")
    everVoid = after.status === "void"
    expect(after.paidAt !== null).toBe(after.status === "paid")
    for (const p of m.payments) expect(p.refunded).toBeLessThanOrEqual(p.amount)
    if (!negativeAdjustment) expect(after.amountPaid).toBeGreaterThanOrEqual(0)
    expect(after.status).not.toBe("written_off")
  })
  return changes
}

describe("a walk through moves and payments (rule 4)", () => {
  // Only the table's moves ever happen, however PATCHes, payments, refunds and reissues interleave.
  prop("only the table's moves happen", [fc.constantFrom(0, 500, 1_000, 2_500), fc.array(op, { maxLength: 40, size: "max" })], ([total, ops]) => {
    for (const change of runWalk(total, ops)) seen.add(change)
  }, { fastCheck: { numRuns: 400 } })

  // The walk above is only worth something if it reached the moves: check it saw each kind.
  it("the walk reached every move of the table", () => {
    const moves = [...seen].map((s) => s.split(" by ")[0])
    for (const move of ["draft→sent", "draft→void", "sent→void", "sent→paid", "paid→sent", "draft→paid"]) {
      expect(moves).toContain(move)
    }
  })

  it("a story: send, pay, try to void, refund, void", () => {
    const changes = runWalk(1_000, [
      { op: "patch", status: "sent", total: undefined },
      { op: "pay", amount: 1_000, outcome: "succeeded", foreign: false },
      { op: "patch", status: "void", total: undefined },
      { op: "refund", pick: 0, amount: 1_000 },
      { op: "patch", status: "void", total: undefined },
      { op: "patch", status: "sent", total: undefined }
    ])
    expect(changes).toEqual(["draft→sent by patch sent", "sent→paid by pay", "paid→sent by refund", "sent→void by patch void"])
  })
})
