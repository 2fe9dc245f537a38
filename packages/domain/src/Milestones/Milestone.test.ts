import { describe, expect, it } from "@effect/vitest"
import { withoutNegativeZero } from "@bizops/testkit/Json"
import { prop } from "@bizops/testkit/Prop"
import { Result, Schema, SchemaIssue } from "effect"
import * as fc from "fast-check"
import { strict } from "../Common/Values.js"
import {
  MAX_MILESTONE_SORT_ORDER,
  Milestone,
  milestoneCompletion,
  MilestoneCreate,
  MilestoneList,
  MilestoneListParams,
  milestoneListOrder,
  MilestoneParentTypes,
  MilestoneStatuses,
  type MilestoneStatus,
  MilestoneUpdate,
  nextMilestoneSortOrder
} from "./Milestone.js"

// ---------------------------------------------------------------------------------------------------
// Bodies, decoded as the Api decodes payloads (JSON, unknown fields refused)
// ---------------------------------------------------------------------------------------------------

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The paths of the problems of a body, each once (as the envelope names them), or []. */
const problemsOf = (schema: typeof MilestoneCreate | typeof MilestoneUpdate) => (body: unknown): ReadonlyArray<string> => {
  const result = Schema.decodeUnknownResult(Schema.toCodecJson(schema))(body, strict)
  if (Result.isSuccess(result)) return []
  return [...new Set(formatIssues(result.failure.issue).issues.map((i) =>
    (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
  ))]
}
const createProblems = problemsOf(MilestoneCreate)
const updateProblems = problemsOf(MilestoneUpdate)

const text = (min: number, max: number) => fc.string({ minLength: min, maxLength: max }).filter((s) => !s.includes("\u0000") && s.isWellFormed())
const date = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
const cents = fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100)
const sortOrder = fc.integer({ min: 0, max: MAX_MILESTONE_SORT_ORDER })
const status = fc.constantFrom(...MilestoneStatuses)

const writable = {
  title: text(1, 200),
  description: fc.option(text(0, 300), { nil: null }),
  dueDate: fc.option(date, { nil: null }),
  amount: fc.option(cents, { nil: null }),
  status,
  sortOrder
}

const createArb = fc.record(
  { parentType: fc.constantFrom(...MilestoneParentTypes), parentId: fc.uuid(), ...writable },
  { requiredKeys: ["parentType", "parentId", "title"] }
)
const updateArb = fc.record(writable, { requiredKeys: [] })

/** A field of a body and a value it refuses. */
const badValue = fc.constantFrom(
  ["title", ""],
  ["title", "t".repeat(201)],
  ["title", null],
  ["description", "d".repeat(5001)],
  ["dueDate", "2027-02-30"],
  ["amount", -0.01],
  ["amount", 1.005],
  ["status", "done"],
  ["status", null],
  ["sortOrder", -1],
  ["sortOrder", 1.5],
  ["sortOrder", MAX_MILESTONE_SORT_ORDER + 1],
  ["sortOrder", null]
)

describe("MilestoneCreate", () => {
  prop("a well-formed body decodes to itself", [createArb], ([body]) => {
    expect(createProblems(body)).toEqual([])
    expect(Schema.decodeUnknownSync(Schema.toCodecJson(MilestoneCreate))(body, strict)).toEqual(body)
  })

  prop("a value out of bounds is refused, on its field", [createArb, badValue], ([body, [field, value]]) => {
    expect(createProblems({ ...body, [field]: value })).toEqual([field])
  })

  prop("a field the service sets, or an unknown one, is refused", [createArb, fc.constantFrom("id", "completedAt", "createdAt", "updatedAt", "sort_order", "projectId")], ([body, field]) => {
    expect(createProblems({ ...body, [field]: null })).toEqual([field])
  })

  prop("a parentType other than projects or client-documents is refused", [createArb, fc.constantFrom("project", "contracts", "invoices", "")], ([body, bad]) => {
    expect(createProblems({ ...body, parentType: bad })).toEqual(["parentType"])
  })

  it("needs parentType, parentId and title", () => {
    expect([...createProblems({})].sort()).toEqual(["parentId", "parentType", "title"])
    expect(createProblems({ parentType: "client-documents", parentId: "not-a-uuid", title: "A" })).toEqual(["parentId"])
    expect(createProblems({ parentType: "client-documents", parentId: "00000000-0000-0000-0000-000000000001", title: "A" })).toEqual([])
  })
})

describe("MilestoneUpdate", () => {
  prop("a well-formed body decodes to itself (every field optional)", [updateArb], ([body]) => {
    expect(updateProblems(body)).toEqual([])
    expect(Schema.decodeUnknownSync(Schema.toCodecJson(MilestoneUpdate))(body, strict)).toEqual(body)
  })

  prop("a value out of bounds is refused, on its field", [updateArb, badValue], ([body, [field, value]]) => {
    expect(updateProblems({ ...body, [field]: value })).toEqual([field])
  })

  prop("a milestone does not move: parentType and parentId are refused, and completedAt follows status", [updateArb, fc.constantFrom("parentType", "parentId", "completedAt", "id")], ([body, field]) => {
    expect(updateProblems({ ...body, [field]: field === "parentType" ? "projects" : "00000000-0000-0000-0000-000000000001" })).toEqual([field])
  })
})

it("the bodies' examples decode", () => {
  for (const [schema, problems] of [[MilestoneCreate, createProblems], [MilestoneUpdate, updateProblems]] as const) {
    const examples = schema.ast.annotations?.examples
    expect(Array.isArray(examples) && examples.length > 0).toBe(true)
    for (const example of Array.isArray(examples) ? examples : []) expect(problems(example)).toEqual([])
  }
})

// ---------------------------------------------------------------------------------------------------
// completedAt follows status
// ---------------------------------------------------------------------------------------------------

const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }).map((ms) => new Date(ms))

describe("milestoneCompletion", () => {
  prop("completing stamps now, reopening clears, and an unchanged or unnamed status keeps completedAt", [
    status,
    fc.option(instant, { nil: null }),
    fc.option(status, { nil: undefined }),
    instant
  ], ([was, completedAt, next, now]) => {
    const after = milestoneCompletion({ status: was, completedAt }, next, now)
    if (next === "completed" && was === "pending") expect(after).toBe(now)
    else if (next === "pending" && was === "completed") expect(after).toBeNull()
    else expect(after).toBe(completedAt)
  })

  // From a new milestone on, through any sequence of writes: completedAt is set iff the status is completed,
  // and it is the time of the write that last completed it (a write that keeps completed keeps the stamp).
  prop("over a history, completedAt is the time the milestone was last completed, null while pending", [
    fc.option(status, { nil: undefined }),
    fc.array(fc.option(status, { nil: undefined }), { maxLength: 20 })
  ], ([created, writes]) => {
    const time = (i: number) => new Date(Date.UTC(2027, 0, 1) + i * 60_000)
    let current: { status: MilestoneStatus; completedAt: Date | null } = {
      status: created ?? "pending",
      completedAt: milestoneCompletion({ status: "pending", completedAt: null }, created, time(0))
    }
    let lastCompleted: Date | null = current.status === "completed" ? time(0) : null
    writes.forEach((next, i) => {
      const at = time(i + 1)
      if (next === "completed" && current.status !== "completed") lastCompleted = at
      if (next === "pending") lastCompleted = null
      current = { status: next ?? current.status, completedAt: milestoneCompletion(current, next, at) }
      expect(current.completedAt === null).toBe(current.status === "pending")
      expect(current.completedAt).toEqual(lastCompleted)
    })
  })
})

// ---------------------------------------------------------------------------------------------------
// The order of the list, and where a new milestone goes
// ---------------------------------------------------------------------------------------------------

describe("the order of milestones", () => {
  prop("one parent's milestones (parentId given) are listed by sortOrder, any other list newest first", [
    fc.record({
      parentType: fc.constantFrom(...MilestoneParentTypes),
      parentId: fc.uuid(),
      status
    }, { requiredKeys: [] })
  ], ([filters]) => {
    expect(milestoneListOrder(filters)).toBe(filters.parentId !== undefined ? "sortOrder" : "newest")
  })

  prop("a new milestone goes after the parent's last, 0 for the first, and stays within bounds", [
    fc.array(sortOrder, { maxLength: 30 })
  ], ([existing]) => {
    const max = existing.length === 0 ? null : Math.max(...existing)
    const next = nextMilestoneSortOrder(max)
    expect(Number.isInteger(next)).toBe(true)
    expect(next).toBeGreaterThanOrEqual(0)
    expect(next).toBeLessThanOrEqual(MAX_MILESTONE_SORT_ORDER)
    if (max === null) expect(next).toBe(0)
    else if (max < MAX_MILESTONE_SORT_ORDER) {
      // Listed by sortOrder, it comes after every milestone the parent has, with no gap.
      for (const other of existing) expect(next).toBeGreaterThan(other)
      expect(next).toBe(max + 1)
    } else expect(next).toBe(MAX_MILESTONE_SORT_ORDER)
    // A body may send the default back unchanged.
    expect(updateProblems({ sortOrder: next })).toEqual([])
  })

  it("the edge of the range", () => {
    expect(nextMilestoneSortOrder(MAX_MILESTONE_SORT_ORDER - 1)).toBe(MAX_MILESTONE_SORT_ORDER)
    expect(nextMilestoneSortOrder(MAX_MILESTONE_SORT_ORDER)).toBe(MAX_MILESTONE_SORT_ORDER)
  })
})

// ---------------------------------------------------------------------------------------------------
// The resource and its list
// ---------------------------------------------------------------------------------------------------

describe("Milestone and its list", () => {
  it.prop("JSON text is the encoded form and decodes back", [Milestone], ([milestone]) => {
    const json = Schema.toCodecJson(Milestone)
    const encoded = JSON.parse(JSON.stringify(milestone))
    expect(encoded).toEqual(withoutNegativeZero(Schema.encodeSync(json)(milestone)))
    // Decoding the text and encoding again gives the same text (-0, which JSON writes as 0, aside).
    expect(withoutNegativeZero(Schema.encodeSync(json)(Schema.decodeUnknownSync(json)(encoded)))).toEqual(encoded)
  })

  it("the list filters parentType, parentId and status", () => {
    const parentId = "00000000-0000-0000-0000-000000000001"
    expect(Schema.decodeUnknownSync(MilestoneListParams)({ parentType: "projects", parentId, status: "pending", pageSize: "50" }))
      .toEqual({ parentType: "projects", parentId, status: "pending", pageSize: 50 })
    for (const bad of [{ parentType: "contracts" }, { parentId: "x" }, { status: "done" }]) {
      expect(Result.isFailure(Schema.decodeUnknownResult(MilestoneListParams)(bad))).toBe(true)
    }
  })

  it.prop("list pages are JSON as encoded", [MilestoneList], ([list]) => {
    expect(JSON.parse(JSON.stringify(list))).toEqual(withoutNegativeZero(Schema.encodeSync(Schema.toCodecJson(MilestoneList))(list)))
  }, { arbitrary: { runs: 20 } })
})
