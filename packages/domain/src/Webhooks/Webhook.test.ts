import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { MAX_SUBSCRIPTIONS_PER_ORGANIZATION, subscriptionQuotaRefusal } from "./Webhook.js"

describe("the subscription quota", () => {
  prop("an organization may add a subscription exactly while it holds fewer than 100", [fc.oneof(fc.nat({ max: 10_000 }), fc.integer({ min: MAX_SUBSCRIPTIONS_PER_ORGANIZATION - 3, max: MAX_SUBSCRIPTIONS_PER_ORGANIZATION + 3 }))], ([count]) => {
    const refusal = subscriptionQuotaRefusal(count)
    expect(refusal === undefined).toBe(count < MAX_SUBSCRIPTIONS_PER_ORGANIZATION)
    if (refusal !== undefined) expect(refusal).toContain(String(MAX_SUBSCRIPTIONS_PER_ORGANIZATION))
  })

  it("the 100th is allowed, the 101st refused", () => {
    expect(MAX_SUBSCRIPTIONS_PER_ORGANIZATION).toBe(100)
    expect(subscriptionQuotaRefusal(99)).toBeUndefined()
    expect(subscriptionQuotaRefusal(100)).toBeDefined()
  })
})
