import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import { canonicalJson } from "../Common/Idempotency.js"
import { refusalError } from "../Common/Refusal.js"
import { Contract, type ContractUpdate } from "./Contract.js"
import { ContractStatuses } from "./Moves.js"
import {
  checkContractDates,
  checkContractDelete,
  contractAmendment,
  contractArchiveAfter,
  contractContent,
  contractDatesAfter,
  type ContractForUpdate,
  decideContractUpdate,
  unarchivesOnly
} from "./Rules.js"

// ---------------------------------------------------------------------------------------------------
// Inputs: stored contracts and update bodies, dates close together where the rules' edges are.
// ---------------------------------------------------------------------------------------------------

const dayOf = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10)
/** A date or none; few distinct days, so that equal and neighbouring dates are common. */
const date = fc.option(fc.integer({ min: 0, max: 6 }).map(dayOf), { nil: null, freq: 4 })
const status = fc.constantFrom(...ContractStatuses)
const at = fc.date({ min: new Date("2026-01-01T00:00:00Z"), max: new Date("2030-01-01T00:00:00Z"), noInvalidDate: true })
const archivedAt = fc.date({ min: new Date("2025-01-01T00:00:00Z"), max: new Date("2025-12-31T00:00:00Z"), noInvalidDate: true })

/**
 * A stored contract as the update rules read it: consistent as the database keeps it (archivedAt iff
 * archived, dates in order).
 */
const stored: fc.Arbitrary<ContractForUpdate> = fc
  .record({ status, archived: fc.boolean(), archivedAt, effectiveDate: date, expirationDate: date })
  .map((c) => {
    const [effectiveDate, expirationDate] = c.effectiveDate !== null && c.expirationDate !== null && c.expirationDate < c.effectiveDate
      ? [c.expirationDate, c.effectiveDate]
      : [c.effectiveDate, c.expirationDate]
    return { ...c, effectiveDate, expirationDate, archivedAt: c.archived ? c.archivedAt : null }
  })

/** An update body: any subset of its fields (a decoded body never holds undefined). */
const update: fc.Arbitrary<ContractUpdate> = fc.record(
  {
    title: fc.string({ minLength: 1, maxLength: 20 }),
    effectiveDate: date,
    expirationDate: date,
    archived: fc.boolean()
  },
  { requiredKeys: [] }
)

/** The dates after an update, as the contract words it: a field the body names replaces the stored one. */
const merged = (c: ContractForUpdate, u: ContractUpdate) => ({
  effectiveDate: "effectiveDate" in u ? u.effectiveDate ?? null : c.effectiveDate,
  expirationDate: "expirationDate" in u ? u.expirationDate ?? null : c.expirationDate
})

const inOrder = (d: { readonly effectiveDate: string | null; readonly expirationDate: string | null }) =>
  d.effectiveDate === null || d.expirationDate === null || !(d.expirationDate < d.effectiveDate)

describe("date order (expirationDate on or after effectiveDate)", () => {
  prop("checkContractDates refuses exactly an expiration before the effective date, on expirationDate", [date, date], ([effectiveDate, expirationDate]) => {
    const result = checkContractDates({ effectiveDate, expirationDate })
    expect(Result.isSuccess(result)).toBe(inOrder({ effectiveDate, expirationDate }))
    if (Result.isFailure(result)) {
      expect(result.failure).toMatchObject({ kind: "invalid", detail: "invalid_payload", path: ["expirationDate"] })
      expect(refusalError(result.failure).message).toBe(`expirationDate: must be on or after effectiveDate (${effectiveDate})`)
    }
  })

  prop("contractDatesAfter merges the body over the stored dates (null clears, absent keeps)", [stored, update], ([c, u]) => {
    expect(contractDatesAfter(c, u)).toEqual(merged(c, u))
  })

  // On a contract that accepts the body (not archived, not voided), the update is refused exactly when
  // the merged dates are out of order, whichever of them the body gave.
  prop("decideContractUpdate checks the merged dates", [stored.filter((c) => !c.archived && c.status !== "voided"), update, at], ([c, u, now]) => {
    const result = decideContractUpdate(c, u, now)
    expect(Result.isSuccess(result)).toBe(inOrder(merged(c, u)))
    if (Result.isFailure(result)) expect(result.failure).toMatchObject({ kind: "invalid", path: ["expirationDate"] })
    else expect({ effectiveDate: result.success.effectiveDate, expirationDate: result.success.expirationDate }).toEqual(merged(c, u))
  })
})

describe("the archive rule", () => {
  const isExactlyUnarchive = (u: ContractUpdate) => canonicalJson(u) === canonicalJson({ archived: false })

  // On an archived contract, the body {"archived": false} alone un-archives it; anything else is 409
  // archived_record_read_only. archived: true archives at the time given; otherwise the state stays.
  prop("contractArchiveAfter", [stored, update, at], ([c, u, now]) => {
    const result = contractArchiveAfter(c, u, now)
    expect(unarchivesOnly(u)).toBe(isExactlyUnarchive(u))
    if (c.archived) {
      expect(Result.isSuccess(result)).toBe(isExactlyUnarchive(u))
      if (Result.isSuccess(result)) expect(result.success).toEqual({ archived: false, archivedAt: null })
      else expect(result.failure).toMatchObject({ kind: "conflict", detail: "archived_record_read_only" })
    } else {
      expect(Result.isSuccess(result) && result.success).toEqual(
        u.archived === true ? { archived: true, archivedAt: now } : { archived: false, archivedAt: null }
      )
    }
  })

  // decideContractUpdate applies it first: an archived contract refuses every other body, even one whose
  // dates are out of order or that would amend it.
  prop("decideContractUpdate: an archived contract takes {archived: false} alone", [stored.filter((c) => c.archived), update, at], ([c, u, now]) => {
    const result = decideContractUpdate(c, u, now)
    if (isExactlyUnarchive(u)) {
      expect(Result.isSuccess(result) && result.success).toMatchObject({ archived: false, archivedAt: null, amendment: undefined })
    } else {
      expect(Result.isFailure(result) && result.failure).toMatchObject({ kind: "conflict", detail: "archived_record_read_only" })
    }
  })

  // A voided contract is final: only archived may still change (409 record_immutable for the rest).
  prop("a voided contract takes archived only", [stored.filter((c) => c.status === "voided" && !c.archived), update, at], ([c, u, now]) => {
    const result = decideContractUpdate(c, u, now)
    const onlyArchived = Object.keys(u).every((key) => key === "archived")
    expect(Result.isSuccess(result)).toBe(onlyArchived)
    if (Result.isFailure(result)) expect(result.failure).toMatchObject({ kind: "conflict", detail: "record_immutable" })
  })

  // Delete: drafts only (else 409 without a detail code); an archived contract, a draft included, is
  // 409 archived_record_read_only.
  prop("checkContractDelete", [status, fc.boolean()], ([s, archived]) => {
    const result = checkContractDelete({ status: s, archived })
    expect(Result.isSuccess(result)).toBe(s === "draft" && !archived)
    if (archived) expect(Result.isFailure(result) && result.failure).toMatchObject({ kind: "conflict", detail: "archived_record_read_only" })
    else if (s !== "draft") expect(Result.isFailure(result) && result.failure).toMatchObject({ kind: "conflict", detail: undefined })
  })
})

describe("amendment", () => {
  // Not a draft and a date actually changes: amended, with the stored dates as previousDates. A draft
  // never amends; a body that sets the same dates (or none) does not amend.
  prop("contractAmendment is exactly a change of dates on a contract that is not a draft", [stored, update], ([c, u]) => {
    const after = merged(c, u)
    const changed = after.effectiveDate !== c.effectiveDate || after.expirationDate !== c.expirationDate
    expect(contractAmendment(c, u)).toEqual(
      c.status !== "draft" && changed ? { effectiveDate: c.effectiveDate, expirationDate: c.expirationDate } : undefined
    )
  })

  prop("setting the same dates again amends nothing", [stored, fc.boolean(), fc.boolean()], ([c, effective, expiration]) => {
    const same: ContractUpdate = {
      ...(effective ? { effectiveDate: c.effectiveDate } : {}),
      ...(expiration ? { expirationDate: c.expirationDate } : {})
    }
    expect(contractAmendment(c, same)).toBeUndefined()
  })

  // Through decideContractUpdate (a contract that accepts the body, dates in order): the decision carries
  // the amendment.
  prop("decideContractUpdate carries the amendment", [stored.filter((c) => !c.archived && c.status !== "voided"), update, at], ([c, u, now]) => {
    const result = decideContractUpdate(c, u, now)
    if (Result.isSuccess(result)) expect(result.success.amendment).toEqual(contractAmendment(c, u))
  })
})

// ---------------------------------------------------------------------------------------------------
// What the client sees: contracts as the API returns them (JSON), decoded.
// ---------------------------------------------------------------------------------------------------

const decodeContract = Schema.decodeUnknownSync(Schema.toCodecJson(Contract))
const timestamp = fc.date({ min: new Date("2026-01-01T00:00:00Z"), max: new Date("2030-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString())
const signer = fc.record({
  contactId: fc.option(fc.uuid(), { nil: null }),
  name: fc.string({ maxLength: 20 }),
  email: fc.constantFrom<string>("", "ana@example.com", "bo@studio.io"),
  role: fc.constantFrom("client", "witness", "operator"),
  order: fc.nat({ max: 5 }),
  status: fc.constantFrom("pending", "signed", "declined"),
  signedAt: fc.option(timestamp, { nil: null })
})
const contractJson = fc.record({
  id: fc.uuid(),
  contractNumber: fc.integer({ min: 1, max: 20_000 }).map((n) => `C-${String(n).padStart(4, "0")}`),
  title: fc.string({ minLength: 1, maxLength: 30 }),
  clientId: fc.uuid(),
  billingContactId: fc.option(fc.uuid(), { nil: null }),
  projectId: fc.option(fc.uuid(), { nil: null }),
  sourceTemplateId: fc.option(fc.uuid(), { nil: null }),
  status,
  signingMode: fc.constantFrom("client_only", "counter_sign", "auto_counter_sign"),
  contentType: fc.constantFrom("richtext", "pdf"),
  issueDate: date,
  effectiveDate: date,
  expirationDate: date,
  signedDate: fc.option(timestamp, { nil: null }),
  currency: fc.constantFrom<string>("USD", "EUR"),
  contractValue: fc.option(fc.integer({ min: 0, max: 10_000_000 }).map((c) => c / 100), { nil: null }),
  signers: fc.array(signer, { maxLength: 3 }),
  archived: fc.boolean(),
  archivedAt: fc.option(timestamp, { nil: null }),
  createdAt: timestamp,
  updatedAt: timestamp
})
type ContractJson = typeof contractJson extends fc.Arbitrary<infer A> ? A : never

const hashInput = (json: ContractJson) => canonicalJson(contractContent(decodeContract(json)))

/** What is not content: changing any of these leaves the hashed content as it is. */
const notContent = fc.record({
  id: fc.uuid(),
  projectId: fc.option(fc.uuid(), { nil: null }),
  sourceTemplateId: fc.option(fc.uuid(), { nil: null }),
  status,
  signingMode: fc.constantFrom("client_only", "counter_sign", "auto_counter_sign"),
  contentType: fc.constantFrom("richtext", "pdf"),
  signedDate: fc.option(timestamp, { nil: null }),
  archived: fc.boolean(),
  archivedAt: fc.option(timestamp, { nil: null }),
  createdAt: timestamp,
  updatedAt: timestamp
}, { requiredKeys: [] })

/** One change of a field the client sees. */
const contentChange = fc.oneof(
  fc.record({ contractNumber: fc.constant("C-99999") }),
  fc.record({ title: fc.constant("Another title") }),
  fc.record({ clientId: fc.constant("00000000-0000-4000-8000-00000000000c") }),
  fc.record({ billingContactId: fc.constant("00000000-0000-4000-8000-00000000000b") }),
  fc.record({ issueDate: fc.constant("2031-01-01") }),
  fc.record({ effectiveDate: fc.constant("2031-01-02") }),
  fc.record({ expirationDate: fc.constant("2031-01-03") }),
  fc.record({ currency: fc.constant("JPY") }),
  fc.record({ contractValue: fc.constant(123_456.78) })
)

describe("contractContent (what the client sees; hashed into the document version)", () => {
  prop("is plain JSON: it survives a JSON round trip unchanged", [contractJson], ([json]) => {
    const content = contractContent(decodeContract(json))
    expect(JSON.parse(JSON.stringify(content))).toEqual(content)
  })

  prop("holds the number, title, client, billing contact, dates, currency, value and signers", [contractJson], ([json]) => {
    expect(contractContent(decodeContract(json))).toEqual({
      contractNumber: json.contractNumber,
      title: json.title,
      clientId: json.clientId,
      billingContactId: json.billingContactId,
      issueDate: json.issueDate,
      effectiveDate: json.effectiveDate,
      expirationDate: json.expirationDate,
      currency: json.currency,
      contractValue: json.contractValue,
      signers: json.signers.map(({ contactId, email, name, order, role }) => ({ contactId, email, name, order, role }))
    })
  })

  prop("status, signing progress, archiving, the project and timestamps are not content", [contractJson, notContent, fc.array(fc.record({ status: fc.constantFrom("pending", "signed"), signedAt: fc.option(timestamp, { nil: null }) }), { maxLength: 3 })], ([json, change, progress]) => {
    const signers = json.signers.map((s, i) => (i < progress.length ? { ...s, ...progress[i] } : s))
    expect(hashInput({ ...json, ...change, signers })).toBe(hashInput(json))
  })

  prop("every field the client sees changes the content", [contractJson, contentChange], ([json, change]) => {
    const changed = { ...json, ...change }
    fc.pre(canonicalJson(changed) !== canonicalJson(json))
    expect(hashInput(changed)).not.toBe(hashInput(json))
  })

  prop("a signer's name, email, role or order changes the content", [contractJson.filter((j) => j.signers.length > 0), fc.constantFrom("name", "email", "role", "order")], ([json, field]) => {
    const [first, ...rest] = json.signers
    const value = field === "order" ? first.order + 1 : field === "email" ? (first.email === "x@y.io" ? "" : "x@y.io") : `${first[field]}!`
    expect(hashInput({ ...json, signers: [{ ...first, [field]: value }, ...rest] })).not.toBe(hashInput(json))
  })

  it("a contract as the API returns it decodes, with an empty signer email", () => {
    const json = {
      id: "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b",
      contractNumber: "C-0001",
      title: "Wedding photography agreement",
      clientId: "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5c",
      billingContactId: null,
      projectId: null,
      sourceTemplateId: null,
      status: "sent",
      signingMode: "client_only",
      contentType: "richtext",
      issueDate: "2027-05-01",
      effectiveDate: "2027-06-01",
      expirationDate: "2027-12-31",
      signedDate: null,
      currency: "USD",
      contractValue: 4800,
      signers: [{ contactId: null, name: "Ana", email: "", role: "client", order: 1, status: "pending", signedAt: null }],
      archived: false,
      archivedAt: null,
      createdAt: "2027-05-01T10:00:00.000Z",
      updatedAt: "2027-05-01T10:00:00.000Z"
    }
    const contract = decodeContract(json)
    expect(contract.createdAt).toEqual(new Date("2027-05-01T10:00:00.000Z"))
    expect(contractContent(contract).signers).toEqual([{ contactId: null, name: "Ana", email: "", role: "client", order: 1 }])
    expect(() => decodeContract({ ...json, signers: [{ ...json.signers[0], email: "not an email" }] })).toThrow()
  })
})
