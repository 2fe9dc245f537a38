import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { reissueCopy, type ReissueCorrections, type ReissueSource } from "./Reissue.js"
import { addDays, daysBetween } from "./Totals.js"

const date = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))
const nullableText = fc.option(fc.string(), { nil: null })

const source: fc.Arbitrary<ReissueSource<string>> = fc.record({
  clientId: fc.uuid(),
  lineItems: fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
  billingContactId: fc.option(fc.uuid(), { nil: null }),
  projectIds: fc.array(fc.uuid(), { maxLength: 3 }),
  subject: nullableText,
  issueDate: date,
  dueDate: date,
  paymentTerms: nullableText,
  notes: nullableText
}).map((s) => s.dueDate < s.issueDate ? { ...s, issueDate: s.dueDate, dueDate: s.issueDate } : s)

const corrections: fc.Arbitrary<ReissueCorrections<string>> = fc.record({
  lineItems: fc.array(fc.string(), { minLength: 1, maxLength: 3 }),
  billingContactId: fc.option(fc.uuid(), { nil: null }),
  projectIds: fc.array(fc.uuid(), { maxLength: 3 }),
  subject: nullableText,
  issueDate: date,
  dueDate: date,
  paymentTerms: nullableText,
  notes: nullableText
}, { requiredKeys: [] })

describe("reissueCopy (void and reissue)", () => {
  // A correction wins; a field not corrected is copied (null corrections clear); the client never changes;
  // the copy is a draft.
  prop("corrections win, the rest is copied, same client, a draft", [source, corrections, date], ([s, c, today]) => {
    const copy = reissueCopy(s, c, today)
    expect(copy.clientId).toBe(s.clientId)
    expect(copy.status).toBe("draft")
    for (const key of ["lineItems", "billingContactId", "projectIds", "subject", "paymentTerms", "notes"] as const) {
      expect(copy[key]).toEqual(c[key] === undefined ? s[key] : c[key])
    }
  })

  // The issue date is today unless given; the due date keeps the original's term from it unless given.
  prop("the dates: today, and the original's term", [source, corrections, date], ([s, c, today]) => {
    const copy = reissueCopy(s, c, today)
    expect(copy.issueDate).toBe(c.issueDate ?? today)
    if (c.dueDate !== undefined) expect(copy.dueDate).toBe(c.dueDate)
    else expect(daysBetween(copy.issueDate, copy.dueDate)).toBe(daysBetween(s.issueDate, s.dueDate))
  })

  it("a 14-day invoice reissued on 2026-11-21 is due on 2026-12-05", () => {
    const copy = reissueCopy({
      clientId: "c",
      lineItems: ["line"],
      billingContactId: null,
      projectIds: [],
      subject: "Shoot",
      issueDate: "2026-01-01",
      dueDate: "2026-01-15",
      paymentTerms: null,
      notes: null
    }, { subject: null }, "2026-11-21")
    expect(copy).toMatchObject({ issueDate: "2026-11-21", dueDate: addDays("2026-11-21", 14), subject: null })
    expect(copy.dueDate).toBe("2026-12-05")
  })
})
