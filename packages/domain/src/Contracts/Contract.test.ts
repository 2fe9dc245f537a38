import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result, Schema, SchemaIssue } from "effect"
import * as fc from "fast-check"
import { strict } from "../Common/Values.js"
import { ContractCreate, ContractListParams, ContractPreviousDates, ContractUpdate, formatContractNumber } from "./Contract.js"
import { ContractStatuses } from "./Moves.js"

// ---------------------------------------------------------------------------------------------------
// Bodies as a client sends them (JSON), well formed unless a property breaks one field.
// ---------------------------------------------------------------------------------------------------

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The paths ("expirationDate") of the problems of a body, each once (as the envelope names them), or []. */
const problemsOf = (schema: Schema.Codec<unknown, unknown>) => (body: unknown): ReadonlyArray<string> => {
  const result = Schema.decodeUnknownResult(Schema.toCodecJson(schema))(body, strict)
  if (Result.isSuccess(result)) return []
  return [...new Set(formatIssues(result.failure.issue).issues.map((i) =>
    (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
  ))]
}
const createProblems = problemsOf(ContractCreate)
const updateProblems = problemsOf(ContractUpdate)

const dayOf = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10)
/** Two dates in order (the same day included), or either unknown. */
const datesInOrder = fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.nat({ max: 400 }), fc.constantFrom("both", "effective", "expiration", "none"))
  .map(([start, length, which]) => ({
    effectiveDate: which === "both" || which === "effective" ? dayOf(start) : null,
    expirationDate: which === "both" || which === "expiration" ? dayOf(start + length) : null
  }))
const title = fc.string({ minLength: 1, maxLength: 300 }).filter((s) => s.isWellFormed() && !s.includes("\u0000"))
const cents = fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100)

const createArb = fc.tuple(
  fc.record({
    title,
    clientId: fc.uuid(),
    billingContactId: fc.option(fc.uuid(), { nil: null }),
    projectId: fc.option(fc.uuid(), { nil: null }),
    sourceTemplateId: fc.option(fc.uuid(), { nil: null }),
    issueDate: fc.option(fc.integer({ min: 0, max: 3_000 }).map(dayOf), { nil: null }),
    contractValue: fc.option(cents, { nil: null })
  }, { requiredKeys: ["title", "clientId"] }),
  datesInOrder,
  fc.boolean()
).map(([body, dates, withDates]) => (withDates ? { ...body, ...dates } : body))

const updateArb = fc.tuple(
  fc.record({ title, archived: fc.boolean() }, { requiredKeys: [] }),
  datesInOrder,
  fc.constantFrom("both", "effective", "expiration", "none")
).map(([body, dates, which]) => ({
  ...body,
  ...(which === "both" || which === "effective" ? { effectiveDate: dates.effectiveDate } : {}),
  ...(which === "both" || which === "expiration" ? { expirationDate: dates.expirationDate } : {})
}))

/** Two dates, the second strictly before the first. */
const datesOutOfOrder = fc.tuple(fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 1, max: 400 }))
  .map(([start, back]) => ({ effectiveDate: dayOf(start), expirationDate: dayOf(start - back) }))

describe("ContractCreate (specification: Create)", () => {
  prop("a well-formed body decodes to itself", [createArb], ([body]) => {
    expect(createProblems(body)).toEqual([])
    expect(Schema.decodeUnknownSync(Schema.toCodecJson(ContractCreate))(body, strict)).toEqual(body)
  })

  prop("expirationDate before effectiveDate is refused, on expirationDate", [createArb, datesOutOfOrder], ([body, dates]) => {
    expect(createProblems({ ...body, ...dates })).toEqual(["expirationDate"])
  })

  prop("a title of 0 or more than 300 characters is refused, on title", [createArb, fc.integer({ min: 301, max: 400 })], ([body, length]) => {
    expect(createProblems({ ...body, title: "" })).toEqual(["title"])
    expect(createProblems({ ...body, title: "x".repeat(length) })).toEqual(["title"])
    expect(createProblems({ ...body, title: "x".repeat(300) })).toEqual([])
  })

  prop("a negative contractValue, or one with more than 2 decimals, is refused", [createArb, fc.oneof(fc.integer({ min: -1_000_000, max: -1 }).map((c) => c / 100), fc.constantFrom(0.001, 12.345))], ([body, value]) => {
    expect(createProblems({ ...body, contractValue: value })).toEqual(["contractValue"])
  })

  // Creation makes drafts only: status and every read-only field are refused like any unknown field.
  prop("read-only and unknown fields are refused", [createArb, fc.constantFrom("status", "contractNumber", "signers", "signingMode", "contentType", "currency", "archived", "signedDate", "id", "projectIds")], ([body, field]) => {
    expect(createProblems({ ...body, [field]: "draft" })).toEqual([field])
  })

  it("needs title and clientId", () => {
    expect([...createProblems({})].sort()).toEqual(["clientId", "title"])
    expect(createProblems({ title: "T", clientId: "not-a-uuid" })).toEqual(["clientId"])
    expect(createProblems({ title: "T", clientId: "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b", effectiveDate: "2027-02-30" })).toEqual(["effectiveDate"])
  })
})

describe("ContractUpdate (specification: Update)", () => {
  prop("any subset of title, effectiveDate, expirationDate (null included) and archived decodes to itself", [updateArb], ([body]) => {
    expect(updateProblems(body)).toEqual([])
    expect(Schema.decodeUnknownSync(Schema.toCodecJson(ContractUpdate))(body, strict)).toEqual(body)
  })

  prop("dates out of order in the body are refused, on expirationDate", [updateArb, datesOutOfOrder], ([body, dates]) => {
    expect(updateProblems({ ...body, ...dates })).toEqual(["expirationDate"])
  })

  prop("title cannot be null or empty; archived is a boolean", [updateArb, fc.constantFrom(["title", null], ["title", ""], ["archived", null], ["archived", "true"])], ([body, [field, value]]) => {
    expect(updateProblems({ ...body, [field]: value })).toEqual([field])
  })

  prop("fields outside the update list are refused", [updateArb, fc.constantFrom("status", "clientId", "projectId", "contractValue", "issueDate", "archivedAt", "billingContactId")], ([body, field]) => {
    expect(updateProblems({ ...body, [field]: null })).toEqual([field])
  })
})

it("the bodies' examples decode", () => {
  for (const [schema, problems] of [[ContractCreate, createProblems], [ContractUpdate, updateProblems]] as const) {
    const examples = schema.ast.annotations?.examples
    expect(Array.isArray(examples) && examples.length > 0).toBe(true)
    for (const example of Array.isArray(examples) ? examples : []) expect(problems(example)).toEqual([])
  }
})

describe("the list and the rest", () => {
  prop("filters clientId, projectId, status and archived (true or false); other values are refused", [fc.uuid(), fc.uuid(), fc.constantFrom(...ContractStatuses), fc.boolean()], ([clientId, projectId, status, archived]) => {
    const decode = Schema.decodeUnknownResult(ContractListParams)
    expect(decode({ clientId, projectId, status, archived: String(archived) })).toEqual(Result.succeed({ clientId, projectId, status, archived }))
    expect(Result.isFailure(decode({ archived: "yes" }))).toBe(true)
    expect(Result.isFailure(decode({ status: `${status}x` }))).toBe(true)
    expect(Result.isFailure(decode({ projectId: "nope" }))).toBe(true)
  })

  it("data.previousDates of contract_amended: both dates, each a date or null", () => {
    const decode = Schema.decodeUnknownResult(ContractPreviousDates)
    expect(decode({ effectiveDate: "2027-06-01", expirationDate: null })).toEqual(Result.succeed({ effectiveDate: "2027-06-01", expirationDate: null }))
    expect(Result.isFailure(decode({ effectiveDate: "2027-06-01" }))).toBe(true)
  })

  it("numbers the series C-0001, C-0002, ...", () => {
    expect([1, 2, 9999, 10000].map(formatContractNumber)).toEqual(["C-0001", "C-0002", "C-9999", "C-10000"])
  })
})
