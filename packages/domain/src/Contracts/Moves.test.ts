import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result } from "effect"
import * as fc from "fast-check"
import { advanceContract, canAdvance, type ContractStatusValue, ContractStatuses, isFinalContractStatus } from "./Moves.js"

// ---------------------------------------------------------------------------------------------------
// The move table as the contract words it, written out independently of Moves.ts:
//   draft → sent → viewed → active → completed; sent|viewed|active → expired;
//   any but completed|expired|voided → voided; other moves are refused.
// ---------------------------------------------------------------------------------------------------

const chain: ReadonlyArray<ContractStatusValue> = ["draft", "sent", "viewed", "active", "completed"]

const inTable = (from: ContractStatusValue, to: ContractStatusValue): boolean =>
  (chain.indexOf(from) !== -1 && chain.indexOf(to) === chain.indexOf(from) + 1) ||
  (to === "expired" && (from === "sent" || from === "viewed" || from === "active")) ||
  (to === "voided" && from !== "completed" && from !== "expired" && from !== "voided")

const status = fc.constantFrom(...ContractStatuses)

describe("the contract move table", () => {
  it("canAdvance is the table, every cell", () => {
    for (const from of ContractStatuses) for (const to of ContractStatuses) expect(canAdvance(from, to), `${from} → ${to}`).toBe(inTable(from, to))
  })

  // An unarchived contract moves exactly along the table; a move says what else it does: sending issues
  // a document version, voiding voids it, becoming active signs the contract.
  prop("advanceContract follows the table and says what the move does", [status, status], ([from, to]) => {
    const result = advanceContract({ status: from, archived: false }, to)
    expect(Result.isSuccess(result)).toBe(inTable(from, to))
    if (Result.isSuccess(result)) {
      expect(result.success).toEqual({
        status: to,
        version: to === "sent" ? "issue" : to === "voided" ? "void" : "none",
        signs: to === "active"
      })
    } else {
      // a 409 without a detail code, naming where the contract is and where it was asked to go
      expect(result.failure).toMatchObject({ kind: "conflict", detail: undefined })
      expect(result.failure.message).toContain(from)
      expect(result.failure.message).toContain(to)
    }
  })

  // A refused move that the table has other moves for names them all.
  prop("a refusal from a status that can still move names where it can go", [status.filter((s) => !isFinalContractStatus(s)), status], ([from, to]) => {
    const result = advanceContract({ status: from, archived: false }, to)
    if (Result.isFailure(result)) {
      for (const next of ContractStatuses.filter((s) => inTable(from, s))) expect(result.failure.message).toContain(next)
    }
  })

  // completed, expired and voided accept nothing, whatever is asked.
  prop("terminal states accept nothing", [fc.constantFrom<ContractStatusValue>("completed", "expired", "voided"), status, fc.boolean()], ([from, to, archived]) => {
    expect(isFinalContractStatus(from)).toBe(true)
    expect(canAdvance(from, to)).toBe(false)
    expect(Result.isFailure(advanceContract({ status: from, archived }, to))).toBe(true)
  })

  // An archived contract is read-only: no move, 409 archived_record_read_only.
  prop("an archived contract moves nowhere", [status, status], ([from, to]) => {
    const result = advanceContract({ status: from, archived: true }, to)
    expect(Result.isFailure(result) && result.failure).toMatchObject({ kind: "conflict", detail: "archived_record_read_only" })
  })
})

// ---------------------------------------------------------------------------------------------------
// A walk: random attempts to move one contract, archive and un-archive it. The walk applies only what
// advanceContract allows, and checks that the status only ever changes along the table.
// ---------------------------------------------------------------------------------------------------

/**
 * A step: a move to any status, or to one the (test's) table allows from wherever the walk is (picked
 * when the step runs), so that walks go deep; or archiving and un-archiving.
 */
type Step =
  | { readonly op: "advance"; readonly to: ContractStatusValue }
  | { readonly op: "advanceAllowed"; readonly pick: number }
  | { readonly op: "archive"; readonly archived: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: status.map((to) => ({ op: "advance" as const, to })) },
  { weight: 4, arbitrary: fc.nat({ max: 5 }).map((pick) => ({ op: "advanceAllowed" as const, pick })) },
  { weight: 1, arbitrary: fc.boolean().map((archived) => ({ op: "archive" as const, archived })) }
)

/** Every move the walks made, to check they reached the whole table. */
const seen = new Set<string>()

describe("a walk of attempted moves", () => {
  prop("never leaves the table; refused moves change nothing; terminal states stay", [fc.array(step, { maxLength: 30, size: "max" })], ([steps]) => {
    let contract = { status: "draft" as ContractStatusValue, archived: false }
    for (const s of steps) {
      if (s.op === "archive") {
        contract = { ...contract, archived: s.archived }
        continue
      }
      const before = contract
      const allowed = ContractStatuses.filter((to) => inTable(before.status, to))
      const to = s.op === "advance" ? s.to : allowed.length === 0 ? "voided" : allowed[s.pick % allowed.length]
      const result = advanceContract(before, to)
      if (Result.isSuccess(result)) {
        expect(before.archived).toBe(false)
        expect(inTable(before.status, result.success.status), `${before.status} → ${result.success.status}`).toBe(true)
        expect(result.success.status).toBe(to)
        seen.add(`${before.status}→${to}`)
        contract = { ...before, status: result.success.status }
      } else {
        // the state the refusal leaves is the state before: a terminal or archived contract, or a move
        // the table does not have
        expect(before.archived || isFinalContractStatus(before.status) || !inTable(before.status, to)).toBe(true)
      }
      if (isFinalContractStatus(before.status)) expect(contract.status).toBe(before.status)
    }
  }, { fastCheck: { numRuns: 500 } })

  it("the walks reached every move of the table", () => {
    const expected = ContractStatuses.flatMap((from) => ContractStatuses.filter((to) => inTable(from, to)).map((to) => `${from}→${to}`))
    expect([...seen].sort()).toEqual(expected.sort())
  })
})
