import { describe, expect } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import * as fc from "fast-check"
import { insertPosition, movePosition, moveTo } from "./Order.js"

const day = fc.uniqueArray(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 30 })

describe("the order of a day's items", () => {
  // An insert lands where asked, or at the end when asked past it (or not asked).
  prop("insertPosition is the requested position clamped to 0..count", [fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }), fc.integer({ min: 0, max: 50 })], ([requested, count]) => {
    const position = insertPosition(requested, count)
    expect(position).toBe(requested === undefined || requested > count ? count : requested)
  })

  // A move lands where asked, at most at the last position.
  prop("movePosition is the requested position clamped to the last", [fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 50 })], ([requested, count]) => {
    expect(movePosition(requested, count)).toBe(Math.min(requested, count - 1))
  })

  // After a move: the same items (a permutation), the moved one at its position, the others in their order.
  prop("moveTo keeps every item and the others' order, and puts the item where asked", [day, fc.nat(), fc.nat({ max: 40 })], ([ids, pick, position]) => {
    const id = ids[pick % ids.length]
    const moved = moveTo(ids, id, position)
    expect([...moved].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    expect(moved.indexOf(id)).toBe(Math.min(position, ids.length - 1))
    expect(moved.filter((x) => x !== id)).toEqual(ids.filter((x) => x !== id))
  })
})
