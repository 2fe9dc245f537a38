import { describe, expect, it } from "@effect/vitest"
import { prop } from "@bizops/testkit/Prop"
import { Schema } from "effect"
import * as fc from "fast-check"
import { MAX_PAGE_SIZE, offsetOf, paginationMeta, ListParams } from "./Pagination.js"

const total = fc.integer({ min: 0, max: 5_000 })
const pageSize = fc.integer({ min: 1, max: MAX_PAGE_SIZE })
const page = fc.integer({ min: 1, max: 5_000 })

/** How many records a page holds, as a client sees it. */
const itemsOn = (t: number, p: number, size: number) => Math.max(0, Math.min(size, t - offsetOf({ page: p, pageSize: size })))

describe("pagination arithmetic", () => {
  prop("totalPages covers every record exactly once", [total, pageSize], ([t, size]) => {
    const { totalPages } = paginationMeta({ page: 1, pageSize: size }, t)
    let seen = 0
    for (let p = 1; p <= totalPages; p++) {
      const n = itemsOn(t, p, size)
      expect(n).toBeGreaterThan(0)
      seen += n
    }
    expect(seen).toBe(t)
    expect(itemsOn(t, totalPages + 1, size)).toBe(0)
  })

  prop("hasMore is true exactly when a later page holds records", [total, pageSize, page], ([t, size, p]) => {
    const meta = paginationMeta({ page: p, pageSize: size }, t)
    expect(meta.hasMore).toBe(p < meta.totalPages)
    expect(meta.hasMore).toBe(itemsOn(t, p + 1, size) > 0)
    expect(meta).toMatchObject({ page: p, pageSize: size, total: t })
  })

  it("an empty list has no pages", () => {
    expect(paginationMeta({ page: 1, pageSize: 25 }, 0)).toEqual({ page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false })
  })

  const Params = Schema.Struct(ListParams)
  const decode = Schema.decodeUnknownResult(Params)

  prop("page and pageSize accept exactly the whole numbers in range", [fc.oneof(fc.integer({ min: -10, max: 200 }).map(String), fc.string({ maxLength: 5 }), fc.double().map(String))], ([raw]) => {
    const size = decode({ pageSize: raw })
    const ok = /^[0-9]+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_PAGE_SIZE
    expect(size._tag === "Success").toBe(ok)
    const p = decode({ page: raw })
    expect(p._tag === "Success").toBe(/^[0-9]{1,9}$/.test(raw) && Number(raw) >= 1)
  })
})
