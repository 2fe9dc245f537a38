import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Effect, Exit, Result } from "effect"
import * as fc from "fast-check"
import { checkTaxSettings, DEFAULT_TAX_SETTINGS, mergeTaxSettings } from "../Clients/Client.js"
import { checkInvoiceDates, invoiceDatesInOrder } from "../Invoices/Invoice.js"
import { checkProjectDates } from "../Projects/Project.js"
import { checkLockedDelete, checkLockedUpdate, lockedAllows } from "../TimelineItems/TimelineItem.js"
import { checkSubscriptionQuota, MAX_SUBSCRIPTIONS_PER_ORGANIZATION, subscriptionQuotaRefusal } from "../Webhooks/Webhook.js"
import { DetailCode, errorCodeOf } from "./Errors.js"
import { orRefuse, Refusal, refusalError, refusalStatus } from "./Refusal.js"

const detail = fc.constantFrom(...DetailCode.literals)
const segment = fc.oneof(fc.stringMatching(/^[a-zA-Z]{1,12}$/), fc.nat({ max: 20 }))
const path = fc.array(segment, { minLength: 1, maxLength: 4 })
const message = fc.string({ minLength: 1, maxLength: 80 })

/** Any refusal a rule can make, through the constructors. */
const refusal: fc.Arbitrary<Refusal> = fc.oneof(
  fc.tuple(path, message).map(([p, m]) => Refusal.invalid(p, m)),
  fc.tuple(detail.filter((d) => d !== "invalid_payload"), fc.stringMatching(/^[a-zA-Z]{1,12}$/), message).map(([d, f, m]) => Refusal.invalidField(d, f, m)),
  fc.tuple(message, fc.option(detail, { nil: undefined }), fc.option(path, { nil: undefined })).map(([m, d, p]) => Refusal.conflict(m, d, p)),
  message.map((m) => Refusal.notFound(m))
)

describe("one mapping from a refusal to the API's error", () => {
  // The error's status is the refusal's HTTP meaning: invalid 400, conflict 409, not_found 404.
  prop("the status is the refusal's kind", [refusal], ([r]) => {
    expect(errorCodeOf(refusalError(r)).status).toBe(refusalStatus(r))
    expect(refusalStatus(r)).toBe({ invalid: 400, conflict: 409, not_found: 404 }[r.kind])
  })

  // 400 invalid_payload: "<path>: <reason>", with one issue at the path whose message is the reason.
  prop("invalid_payload names the path in the message and in the issue", [path, message], ([p, m]) => {
    const error = refusalError(Refusal.invalid(p, m))
    expect(error).toMatchObject({ _tag: "InvalidRequest", message: `${p.join(".")}: ${m}`, details: { code: "invalid_payload", issues: [{ path: p, message: m }] } })
  })

  // Any other 400 keeps its sentence and carries its code and the field.
  prop("another 400 code carries the code and the field", [detail.filter((d) => d !== "invalid_payload"), fc.stringMatching(/^[a-zA-Z]{1,12}$/), message], ([d, f, m]) => {
    expect(refusalError(Refusal.invalidField(d, f, m))).toMatchObject({ _tag: "InvalidRequest", message: m, details: { code: d, field: f } })
  })

  // A 409 carries its code when it has one, and never a field or issues.
  prop("a conflict carries its code only", [message, fc.option(detail, { nil: undefined }), fc.option(path, { nil: undefined })], ([m, d, p]) => {
    const error = refusalError(Refusal.conflict(m, d, p))
    expect(error._tag).toBe("Conflict")
    expect(error.message).toBe(m)
    expect(error.details).toEqual(d === undefined ? undefined : { code: d })
  })

  // orRefuse: the success, or a failure with exactly refusalError's error.
  prop("orRefuse is the success or refusalError", [fc.oneof(fc.integer().map((n) => Result.succeed(n)), refusal.map((r) => Result.fail(r)))], ([result]) => {
    const exit = Effect.runSyncExit(orRefuse(result))
    if (Result.isSuccess(result)) expect(exit).toEqual(Exit.succeed(result.success))
    else expect(exit).toEqual(Exit.fail(refusalError(result.failure)))
  })
})

const dayOf = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10)
/** Two dates: any two, or close together (the same day, a day apart) where the rule's edge is. */
const dates = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 3_000 })),
  fc.tuple(fc.integer({ min: 3, max: 3_000 }), fc.integer({ min: -2, max: 2 })).map(([n, d]) => [n, n + d] as const)
).map(([a, b]) => [dayOf(a), dayOf(b)] as const)

describe("the rules that refuse with it", () => {
  // The project date check: refused exactly when both dates are given and out of order, on endDate.
  prop("checkProjectDates refuses exactly an end date before the start date", [fc.option(dates, { nil: undefined }), fc.boolean()], ([pair, startOnly]) => {
    const [startDate, endDate] = pair === undefined ? [null, null] : startOnly ? [pair[0], null] : pair
    const result = checkProjectDates({ startDate, endDate })
    expect(Result.isSuccess(result)).toBe(startDate === null || endDate === null || startDate <= endDate)
    if (Result.isFailure(result)) {
      expect(result.failure).toMatchObject({ kind: "invalid", detail: "invalid_payload", path: ["endDate"], message: "must be on or after startDate" })
      expect(refusalError(result.failure).message).toBe("endDate: must be on or after startDate")
    }
  })


  // The invoice date check: refused exactly when the dates are out of order, on dueDate, naming the issue date.
  prop("checkInvoiceDates refuses exactly a due date before the issue date", [dates], ([[issueDate, dueDate]]) => {
    const result = checkInvoiceDates({ issueDate, dueDate })
    expect(Result.isSuccess(result)).toBe(invoiceDatesInOrder({ issueDate, dueDate }))
    expect(Result.isSuccess(result)).toBe(issueDate <= dueDate)
    if (Result.isFailure(result)) {
      expect(result.failure).toMatchObject({ kind: "invalid", detail: "invalid_payload", path: ["dueDate"] })
      expect(result.failure.message).toContain(issueDate)
    }
  })

  // A locked item refuses every change but unlocking (409 record_immutable) and every delete.
  const update = fc.record({ title: fc.string(), locked: fc.boolean(), durationMinutes: fc.nat() }, { requiredKeys: [] })
  prop("a locked item refuses what lockedAllows does not allow, and deletion", [fc.boolean(), update], ([locked, u]) => {
    const patch = checkLockedUpdate({ locked }, u)
    expect(Result.isSuccess(patch)).toBe(!locked || lockedAllows(u))
    if (Result.isFailure(patch)) expect(patch.failure).toMatchObject({ kind: "conflict", detail: "record_immutable" })
    const removal = checkLockedDelete({ locked })
    expect(Result.isSuccess(removal)).toBe(!locked)
  })

  // The quota and the old message form agree.
  prop("checkSubscriptionQuota is a 409 quota_exceeded from the maximum on", [fc.nat({ max: 300 })], ([count]) => {
    const result = checkSubscriptionQuota(count)
    expect(Result.isSuccess(result)).toBe(count < MAX_SUBSCRIPTIONS_PER_ORGANIZATION)
    if (Result.isFailure(result)) {
      expect(result.failure).toMatchObject({ kind: "conflict", detail: "quota_exceeded" })
      expect(subscriptionQuotaRefusal(count)).toBe(result.failure.message)
    } else expect(subscriptionQuotaRefusal(count)).toBeUndefined()
  })

  it("checkTaxSettings refuses an override without a rate on taxSettings.taxRate; mergeTaxSettings keeps its sentence", () => {
    const result = checkTaxSettings(DEFAULT_TAX_SETTINGS, { overrideTaxRate: true })
    expect(Result.isFailure(result) && result.failure).toMatchObject({ kind: "invalid", detail: "invalid_payload", path: ["taxSettings", "taxRate"] })
    expect(mergeTaxSettings(DEFAULT_TAX_SETTINGS, { overrideTaxRate: true })).toEqual(
      Result.fail("taxSettings.taxRate is required when taxSettings.overrideTaxRate is true")
    )
  })
})
