import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Result, Schema, SchemaIssue } from "effect"
import * as fc from "fast-check"
import { canonicalJson } from "../Common/Idempotency.js"
import { strict } from "../Common/Values.js"
import {
  ClientDocument,
  clientDocumentContent,
  type ClientDocumentContentSource,
  ClientDocumentImport,
  clientDocumentIssuesVersion,
  ClientDocumentList,
  ClientDocumentListParams,
  type ClientDocumentState,
  ClientDocumentStatuses,
  isVisibleClientDocument
} from "./ClientDocument.js"

// ---------------------------------------------------------------------------------------------------
// Import records as a file holds them (JSON, as the importer decodes them), well formed unless a
// property breaks one field.
// ---------------------------------------------------------------------------------------------------

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()
const importJson = Schema.toCodecJson(ClientDocumentImport)

/** The paths of the problems of a record, each once (as the importer names them), or []. */
const problems = (record: unknown): ReadonlyArray<string> => {
  const result = Schema.decodeUnknownResult(importJson)(record, strict)
  if (Result.isSuccess(result)) return []
  return [...new Set(formatIssues(result.failure.issue).issues.map((i) =>
    (i.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
  ))]
}

const decode = (record: unknown): ClientDocumentImport => {
  const result = Schema.decodeUnknownResult(importJson)(record, strict)
  if (Result.isFailure(result)) throw new Error(String(result.failure))
  return result.success
}

const text = (max: number) => fc.string({ minLength: 1, maxLength: max }).filter((s) => !s.includes("\u0000") && s.isWellFormed())
const status = fc.constantFrom(...ClientDocumentStatuses)
const instant = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }).map((ms) => new Date(ms).toISOString())
const url = fc.webUrl({ validSchemes: ["https", "http"] }).filter((u) => u.length <= 2000)

const recordArb = fc.record(
  {
    externalId: text(60),
    title: fc.option(text(100), { nil: null }),
    status,
    contactId: fc.option(fc.uuid(), { nil: null }),
    clientId: fc.option(fc.uuid(), { nil: null }),
    projectId: fc.option(fc.uuid(), { nil: null }),
    engagementProjectId: fc.option(fc.uuid(), { nil: null }),
    isTemplate: fc.boolean(),
    clientUrl: fc.option(url, { nil: null }),
    quoteConvertedAt: fc.option(instant, { nil: null }),
    expiresAt: fc.option(instant, { nil: null }),
    archivedAt: fc.option(instant, { nil: null })
  },
  { requiredKeys: ["externalId", "status"] }
)

const TIMESTAMPS = ["quoteConvertedAt", "expiresAt", "archivedAt"] as const

describe("ClientDocumentImport (contract: client documents import record)", () => {
  prop("a well-formed record decodes to itself (timestamps as Dates), isTemplate false when left out", [recordArb], ([record]) => {
    const expected: Record<string, unknown> = { isTemplate: false, ...record }
    for (const field of TIMESTAMPS) {
      const value = record[field]
      if (typeof value === "string") expected[field] = new Date(value)
    }
    expect(decode(record)).toEqual(expected)
  })

  prop("an unknown field, or one the service sets, is refused (a typo must not pass silently)", [recordArb, fc.constantFrom("id", "kind", "createdAt", "updatedAt", "external_id", "contractId")], ([record, field]) => {
    expect(problems({ ...record, [field]: "x" })).toEqual([field])
  })

  prop("a status outside the specification's is refused, on status", [recordArb, fc.constantFrom("Sent", "signed", "cancelled", "", "voided")], ([record, bad]) => {
    expect(problems({ ...record, status: bad })).toEqual(["status"])
  })

  prop("a clientUrl that is not an absolute http(s) URL is refused, on clientUrl", [recordArb, fc.constantFrom("javascript:alert(1)", "/p/sf-1", "clients.example.com/p/1", "ftp://example.com/a", "data:text/html,hi")], ([record, bad]) => {
    expect(problems({ ...record, clientUrl: bad })).toEqual(["clientUrl"])
  })

  prop("an id that is not a UUID, or a timestamp that is not a date-time, is refused on it", [recordArb, fc.constantFrom("contactId", "clientId", "projectId", "engagementProjectId", ...TIMESTAMPS)], ([record, field]) => {
    expect(problems({ ...record, [field]: "not-it" })).toEqual([field])
  })

  prop("externalId is 1 to 255 characters, title at most 500", [recordArb, fc.boolean()], ([record, onTitle]) => {
    expect(problems(onTitle ? { ...record, title: "t".repeat(501) } : { ...record, externalId: "e".repeat(256) })).toEqual([onTitle ? "title" : "externalId"])
    expect(problems({ ...record, externalId: "" })).toEqual(["externalId"])
    expect(problems({ ...record, externalId: "e".repeat(255), title: "t".repeat(500) })).toEqual([])
  })

  it("needs externalId and status; everything else may be left out", () => {
    expect([...problems({})].sort()).toEqual(["externalId", "status"])
    expect(decode({ externalId: "sf-1", status: "draft" })).toEqual({ externalId: "sf-1", status: "draft", isTemplate: false })
  })

  it("its example decodes", () => {
    const examples = ClientDocumentImport.ast.annotations?.examples
    expect(Array.isArray(examples) && examples.length > 0).toBe(true)
    for (const example of Array.isArray(examples) ? examples : []) expect(problems(example)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------------
// Visibility and document versions
// ---------------------------------------------------------------------------------------------------

const state: fc.Arbitrary<ClientDocumentState> = fc.record({ status, isTemplate: fc.boolean() })
const document: fc.Arbitrary<ClientDocumentState> = fc.record({ status, isTemplate: fc.constant(false) })

describe("templates are not part of the API", () => {
  prop("a document is visible iff it is not a template", [state], ([doc]) => {
    expect(isVisibleClientDocument(doc)).toBe(!doc.isTemplate)
  })

  prop("a template never issues a version, whatever it was and whatever its status", [fc.option(state, { nil: undefined }), status], ([before, now]) => {
    expect(clientDocumentIssuesVersion(before, { status: now, isTemplate: true })).toBe(false)
  })
})

describe("a document that becomes sent issues a document version", () => {
  prop("a change into sent issues one", [document.filter((d) => d.status !== "sent")], ([before]) => {
    expect(clientDocumentIssuesVersion(before, { status: "sent", isTemplate: false })).toBe(true)
  })

  it("a new document imported as sent issues one; imported otherwise, none", () => {
    for (const s of ClientDocumentStatuses) expect(clientDocumentIssuesVersion(undefined, { status: s, isTemplate: false })).toBe(s === "sent")
  })

  it("sent → sent issues none (nothing became sent)", () => {
    expect(clientDocumentIssuesVersion({ status: "sent", isTemplate: false }, { status: "sent", isTemplate: false })).toBe(false)
  })

  prop("a document whose status is not sent afterwards issues none", [fc.option(state, { nil: undefined }), document.filter((d) => d.status !== "sent")], ([before, after]) => {
    expect(clientDocumentIssuesVersion(before, after)).toBe(false)
  })

  prop("a template made a document while sent issues one: no client could see it before", [status], ([was]) => {
    expect(clientDocumentIssuesVersion({ status: was, isTemplate: true }, { status: "sent", isTemplate: false })).toBe(true)
  })

  // Over a document's history, versions are issued exactly on the entries into sent: never twice without
  // the document leaving sent in between, and the first sent state always issues.
  prop("over a history, each stay in sent issues exactly one version", [fc.array(state, { minLength: 1, maxLength: 30 })], ([history]) => {
    const issued = history.map((after, i) => clientDocumentIssuesVersion(i === 0 ? undefined : history[i - 1], after))
    const visiblySent = history.map((d) => !d.isTemplate && d.status === "sent")
    const stays = visiblySent.filter((sent, i) => sent && (i === 0 || !visiblySent[i - 1])).length
    expect(issued.filter(Boolean).length).toBe(stays)
    issued.forEach((didIssue, i) => {
      if (didIssue) expect(visiblySent[i]).toBe(true)
    })
  })
})

// ---------------------------------------------------------------------------------------------------
// What the client sees: the content hashed into a version
// ---------------------------------------------------------------------------------------------------

const contentSource = fc.record({
  kind: fc.constant("smart-file" as const),
  title: fc.option(text(50), { nil: null }),
  contactId: fc.option(fc.uuid(), { nil: null }),
  clientId: fc.option(fc.uuid(), { nil: null }),
  projectId: fc.option(fc.uuid(), { nil: null }),
  clientUrl: fc.option(url, { nil: null }),
  expiresAt: fc.option(instant.map((s) => new Date(s)), { nil: null }),
  status,
  isTemplate: fc.boolean(),
  engagementProjectId: fc.option(fc.uuid(), { nil: null }),
  quoteConvertedAt: fc.option(instant.map((s) => new Date(s)), { nil: null }),
  archivedAt: fc.option(instant.map((s) => new Date(s)), { nil: null }),
  updatedAt: instant.map((s) => new Date(s))
})

const CONTENT_FIELDS = ["title", "contactId", "clientId", "projectId", "clientUrl", "expiresAt"] as const
const NOT_CONTENT = ["status", "isTemplate", "engagementProjectId", "quoteConvertedAt", "archivedAt", "updatedAt"] as const

const hashText = (doc: ClientDocumentContentSource) => canonicalJson(clientDocumentContent(doc))

describe("clientDocumentContent (what the client sees)", () => {
  prop("a change of what the client sees changes the content", [contentSource, contentSource, fc.constantFrom(...CONTENT_FIELDS)], ([doc, other, field]) => {
    const changed = { ...doc, [field]: other[field] }
    const same = field === "expiresAt"
      ? (doc.expiresAt?.getTime() ?? null) === (other.expiresAt?.getTime() ?? null)
      : doc[field] === other[field]
    expect(hashText(changed) === hashText(doc)).toBe(same)
  })

  prop("status, the template flag, conversion, archiving, the engagement project and timestamps are not content", [contentSource, contentSource, fc.constantFrom(...NOT_CONTENT)], ([doc, other, field]) => {
    expect(hashText({ ...doc, [field]: other[field] })).toBe(hashText(doc))
  })

  prop("the content is plain JSON: it reads back equal, the expiry as an ISO date-time", [contentSource], ([doc]) => {
    const content = clientDocumentContent(doc)
    expect(JSON.parse(JSON.stringify(content))).toEqual(content)
    expect(content.expiresAt).toBe(doc.expiresAt === null ? null : doc.expiresAt.toISOString())
    expect(content.kind).toBe("smart-file")
  })
})

// ---------------------------------------------------------------------------------------------------
// The resource and its list
// ---------------------------------------------------------------------------------------------------

describe("ClientDocument and its list", () => {
  it.prop("JSON text is the encoded form and decodes back", [ClientDocument], ([doc]) => {
    const json = Schema.toCodecJson(ClientDocument)
    const text = JSON.parse(JSON.stringify(doc))
    expect(text).toEqual(Schema.encodeSync(json)(doc))
    expect(Schema.decodeUnknownSync(json)(text)).toEqual(doc)
  })

  it("every field of the specification, kind smart-file only", () => {
    const base = {
      id: "00000000-0000-0000-0000-000000000001",
      kind: "smart-file",
      title: null,
      status: "in_progress",
      contactId: null,
      clientId: null,
      projectId: null,
      engagementProjectId: null,
      isTemplate: false,
      clientUrl: null,
      quoteConvertedAt: null,
      expiresAt: "2027-06-01T00:00:00.000Z",
      archivedAt: null,
      createdAt: "2027-04-20T10:00:00.000Z",
      updatedAt: "2027-04-21T10:00:00.000Z"
    }
    const json = Schema.toCodecJson(ClientDocument)
    expect(Schema.decodeUnknownSync(json)(base).expiresAt).toEqual(new Date("2027-06-01T00:00:00.000Z"))
    expect(Result.isFailure(Schema.decodeUnknownResult(json)({ ...base, kind: "contract" }))).toBe(true)
    expect(Object.keys(ClientDocument.fields).sort()).toEqual(Object.keys(base).sort())
  })

  it("the list filters clientId, projectId and status", () => {
    const params = Schema.decodeUnknownSync(ClientDocumentListParams)({ clientId: "00000000-0000-0000-0000-000000000001", projectId: "00000000-0000-0000-0000-000000000002", status: "in_progress", page: "2" })
    expect(params).toEqual({ clientId: "00000000-0000-0000-0000-000000000001", projectId: "00000000-0000-0000-0000-000000000002", status: "in_progress", page: 2 })
    expect(Result.isFailure(Schema.decodeUnknownResult(ClientDocumentListParams)({ status: "signed" }))).toBe(true)
    expect(Result.isFailure(Schema.decodeUnknownResult(ClientDocumentListParams)({ clientId: "nope" }))).toBe(true)
  })

  it.prop("list pages are JSON as encoded", [ClientDocumentList], ([list]) => {
    expect(JSON.parse(JSON.stringify(list))).toEqual(Schema.encodeSync(Schema.toCodecJson(ClientDocumentList))(list))
  }, { arbitrary: { runs: 20 } })
})
