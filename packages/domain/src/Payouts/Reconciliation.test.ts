import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Option } from "effect"
import * as fc from "fast-check"
import { fractionDigits, fromMinorUnits } from "../Common/Money.js"
import { identityDiscrepancy, type PayoutFigures, reconcile, reconciledOn } from "./Reconciliation.js"

// ---------------------------------------------------------------------------------------------------
// Generators. Every amount is drawn in minor units (integers) and written in major units of its currency,
// so that the oracle below computes the identity from the integers, independently of the rule.
// ---------------------------------------------------------------------------------------------------

/** Currencies with 2, 0 and 3 fraction digits. */
const currency = fc.constantFrom("USD", "EUR", "JPY", "KWD")

/** The identity's terms, the dispute term included. */
const TERMS = ["grossTotal", "feeTotal", "refundTotal", "disputeTotal"] as const
type Term = typeof TERMS[number]
const term = fc.constantFrom(...TERMS)

/** A total in minor units: 0 often enough to be seen next to null. */
const minor = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 50_000_000 }))
const maybeMinor = fc.option(minor, { nil: null, freq: 3 })

const reconciledAt = fc.integer({ min: 0, max: 3_000 }).map((day) => new Date(Date.UTC(2020, 0, 1) + day * 86_400_000 + 3_600_123))

/** The figures in minor units (null: unknown), from which a payout is written. */
interface Minors {
  readonly amount: number
  readonly grossTotal: number | null
  readonly feeTotal: number | null
  readonly refundTotal: number | null
  readonly disputeTotal: number | null
  readonly unattributedTotal: number | null
}

const written = (m: Minors, cur: string, lastReconciledAt: Date | null): PayoutFigures => {
  const digits = fractionDigits(cur)
  const major = (n: number | null) => (n === null ? null : fromMinorUnits(n, digits))
  return {
    amount: fromMinorUnits(m.amount, digits),
    currency: cur,
    grossTotal: major(m.grossTotal),
    feeTotal: major(m.feeTotal),
    refundTotal: major(m.refundTotal),
    disputeTotal: major(m.disputeTotal),
    unattributedTotal: major(m.unattributedTotal),
    lastReconciledAt
  }
}

/** Any figures at all: each total null or not, reconciled or not, amount anything. */
const anyMinors = fc.record({
  amount: fc.integer({ min: -1_000_000, max: 50_000_000 }),
  grossTotal: maybeMinor,
  feeTotal: maybeMinor,
  refundTotal: maybeMinor,
  disputeTotal: maybeMinor,
  unattributedTotal: maybeMinor
})
const anyPayout = fc.tuple(anyMinors, currency, fc.option(reconciledAt, { nil: null })).map(([m, cur, at]) => ({ m, p: written(m, cur, at) }))

/** Figures whose identity holds: amount = gross − fee − refund − dispute + (unattributed or 0). */
const balancedMinors = fc.record({
  grossTotal: minor,
  feeTotal: minor,
  refundTotal: minor,
  disputeTotal: minor,
  unattributedTotal: fc.option(minor, { nil: null })
}).map((m) => ({ ...m, amount: m.grossTotal - m.feeTotal - m.refundTotal - m.disputeTotal + (m.unattributedTotal ?? 0) }))

/** A reconciled payout whose identity holds exactly. */
const balanced = fc.tuple(balancedMinors, currency, reconciledAt).map(([m, cur, at]) => ({ m, p: written(m, cur, at) }))

/** The oracle: the identity's left side minus amount, from the integers; null when a term is unknown. */
const oracleDiscrepancy = (m: Minors, withDisputes: boolean): number | null => {
  if (m.grossTotal === null || m.feeTotal === null || m.refundTotal === null) return null
  if (withDisputes && m.disputeTotal === null) return null
  const dispute = withDisputes && m.disputeTotal !== null ? m.disputeTotal : 0
  return m.grossTotal - m.feeTotal - m.refundTotal - dispute + (m.unattributedTotal ?? 0) - m.amount
}

const withTerm = (p: PayoutFigures, field: Term, value: number | null): PayoutFigures => ({ ...p, [field]: value })

// ---------------------------------------------------------------------------------------------------

describe("reconcile: never reconciled (rule 2)", () => {
  // lastReconciledAt null: unreconciled with no discrepancy, whatever totals the record carries.
  prop("lastReconciledAt null always gives unreconciled and no discrepancy", [anyPayout], ([{ p }]) => {
    const r = reconcile({ ...p, lastReconciledAt: null })
    expect(r.status).toBe("unreconciled")
    expect(Option.isNone(r.discrepancy)).toBe(true)
  })
})

describe("reconcile: reconciled means the identity holds exactly (rule 1)", () => {
  // A reconciled payout whose identity holds is `reconciled`, discrepancy 0, in every currency.
  prop("a balanced payout is reconciled with discrepancy 0", [balanced], ([{ p }]) => {
    const r = reconcile(p)
    expect(r.status).toBe("reconciled")
    expect(r.discrepancy).toEqual(Option.some(0))
  })

  // For any figures: `reconciled` only with every term known and the identity exact, to the minor unit.
  prop("reconciled implies every term known and the identity exact", [fc.oneof(anyPayout, balanced)], ([{ m, p }]) => {
    const r = reconcile(p)
    if (r.status !== "reconciled") return
    expect(p.lastReconciledAt).not.toBeNull()
    for (const field of TERMS) expect(p[field]).not.toBeNull()
    expect(oracleDiscrepancy(m, true)).toBe(0)
  }, { fastCheck: { numRuns: 300 } })

  // One minor unit off (either way, on any term or the amount) is not reconciled, and the discrepancy says by how much.
  prop("an identity off by k minor units is unreconciled with discrepancy k", [balanced, fc.integer({ min: -500, max: 500 }).filter((k) => k !== 0)], ([{ m, p }, k]) => {
    const digits = fractionDigits(p.currency)
    const off = { ...p, amount: fromMinorUnits(m.amount - k, digits) }
    const r = reconcile(off)
    expect(r.status).toBe("unreconciled")
    expect(r.discrepancy).toEqual(Option.some(k))
  })

  // The discrepancy, when the rule gives one, is the oracle's; when it gives none, the oracle has none.
  prop("the discrepancy is the oracle's, and none exactly when a needed term is unknown", [anyPayout.filter(({ p }) => p.lastReconciledAt !== null)], ([{ m, p }]) => {
    const r = reconcile(p)
    const expected = oracleDiscrepancy(m, p.disputeTotal !== null)
    expect(r.discrepancy).toEqual(expected === null ? Option.none() : Option.some(expected))
  }, { fastCheck: { numRuns: 300 } })
})

describe("reconcile: a null is unknown, never 0 (rules 3 and 4)", () => {
  // Any null term in the identity (gross, fee, refund or dispute) and the payout is never `reconciled`,
  // even when the term it stands for is 0, so that reading null as 0 would balance.
  prop("a payout with a null term is never reconciled", [balancedMinors, term, currency, reconciledAt], ([m, field, cur, at]) => {
    // The term is 0 and the amount balances with it: reading null as 0 would make it reconcile.
    const zeroed = { ...m, [field]: 0 }
    const rebalanced = { ...zeroed, amount: zeroed.grossTotal - zeroed.feeTotal - zeroed.refundTotal - zeroed.disputeTotal + (zeroed.unattributedTotal ?? 0) }
    const p = written(rebalanced, cur, at)
    expect(reconcile(p).status).toBe("reconciled")
    expect(reconcile(withTerm(p, field, null)).status).not.toBe("reconciled")
  })

  prop("any figures with a null term never give reconciled", [anyPayout.filter(({ p }) => TERMS.some((f) => p[f] === null))], ([{ p }]) => {
    expect(reconcile(p).status).not.toBe("reconciled")
  })

  // disputeTotal null on a reconciled payout: reconciled_without_disputes, short by exactly the dispute amount.
  prop("disputeTotal null gives reconciled_without_disputes, short by the dispute amount", [balanced], ([{ m, p }]) => {
    const r = reconcile({ ...p, disputeTotal: null })
    expect(r.status).toBe("reconciled_without_disputes")
    expect(r.discrepancy).toEqual(Option.some(m.disputeTotal))
  })

  // On a reconciled payout, a term of 0 and the same term null never give the same answer (when the other
  // terms of the identity are known: with one of them unknown, neither has a discrepancy to give).
  const othersKnown = (p: PayoutFigures, field: Term) =>
    field === "disputeTotal" || TERMS.every((f) => f === field || f === "disputeTotal" || p[f] !== null)
  const reconciledAndTerm = fc.tuple(anyPayout, term).filter(([{ p }, field]) => p.lastReconciledAt !== null && othersKnown(p, field))
  prop("the identity's discrepancy is none whenever disputeTotal is unknown (never read as 0)", [anyPayout], ([{ p }]) => {
    expect(Option.isNone(identityDiscrepancy({ ...p, disputeTotal: null }))).toBe(true)
  })

  prop("0 and null are never the same answer", [reconciledAndTerm], ([[{ p }, field]]) => {
    expect(reconcile(withTerm(p, field, 0))).not.toEqual(reconcile(withTerm(p, field, null)))
  }, { fastCheck: { numRuns: 300 } })

  it("an unreconciled-looking payout with every total 0 is not the same as one with every total null", () => {
    const base = { amount: 0, currency: "USD", unattributedTotal: null, lastReconciledAt: new Date("2026-01-05T10:00:00Z") }
    const zeros = reconcile({ ...base, grossTotal: 0, feeTotal: 0, refundTotal: 0, disputeTotal: 0 })
    const nulls = reconcile({ ...base, grossTotal: null, feeTotal: null, refundTotal: null, disputeTotal: null })
    expect(zeros).toEqual({ status: "reconciled", discrepancy: Option.some(0) })
    expect(nulls).toEqual({ status: "reconciled_without_disputes", discrepancy: Option.none() })
  })
})

describe("reconciledOn (rule 6)", () => {
  it("is the UTC day of lastReconciledAt, or null", () => {
    expect(reconciledOn({ lastReconciledAt: new Date("2024-03-09T23:59:59.999Z") })).toBe("2024-03-09")
    expect(reconciledOn({ lastReconciledAt: null })).toBeNull()
  })
})
