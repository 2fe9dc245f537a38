import { describe, expect, it as plain, layer } from "@effect/vitest"
import { withoutEmptyQueryValues } from "@bizops/server/Http/Envelope"
import { get, post, TestServer, TestServerLive } from "@bizops/testkit"
import { Effect } from "effect"

layer(TestServerLive)("validation", (it) => {
  it.effect("a body with four problems gets all four, each with its path, and creates nothing", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const res = yield* post("/api/v1/clients", { name: "", status: "bogus", notes: 5, taxSettings: { taxRate: "x" }, extra: 1 }, { key: org.apiKey })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe("invalid_request")
      expect(res.body.error.details.code).toBe("invalid_payload")
      const issues: ReadonlyArray<{ readonly path: ReadonlyArray<string | number>; readonly message: string }> = res.body.error.details.issues
      expect(issues.map((issue) => issue.path.join("."))).toEqual(["extra", "name", "status", "notes", "taxSettings.taxRate"])
      expect(res.body.error.message).toBe(`${issues[0]?.path.join(".")}: ${issues[0]?.message}`)
      const list = yield* get("/api/v1/clients", { key: org.apiKey })
      expect(list.body.pagination.total).toBe(0)
    }))

  it.effect("an enum error lists every allowed value", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const res = yield* post("/api/v1/clients", { name: "A", status: "bogus" }, { key: org.apiKey })
      expect(res.status).toBe(400)
      expect(res.body.error.details.issues).toEqual([
        { path: ["status"], message: "Expected \"new\" | \"contacted\" | \"qualified\" | \"active\" | \"inactive\" | \"declined\" | \"spam\"" }
      ])
    }))
})

describe("empty query values", () => {
  plain("are left out; filled ones are kept in their order", () => {
    expect(withoutEmptyQueryValues("/api/v1/clients?status=&page=2&pageSize=&updatedSince=")).toBe("/api/v1/clients?page=2")
    expect(withoutEmptyQueryValues("/api/v1/clients?status=&page=")).toBe("/api/v1/clients")
    expect(withoutEmptyQueryValues("/api/v1/clients?overdue&=x&a=b=c")).toBe("/api/v1/clients?a=b=c")
    expect(withoutEmptyQueryValues("/api/v1/clients?status=new")).toBe("/api/v1/clients?status=new")
    expect(withoutEmptyQueryValues("/api/v1/clients")).toBe("/api/v1/clients")
  })
})

layer(TestServerLive)("empty query values over HTTP", (it) => {
  it.effect("a list sent every parameter empty (as the docs page's examples do) is the list without filters", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      yield* post("/api/v1/clients", { name: "A", status: "active" }, { key: org.apiKey })
      yield* post("/api/v1/clients", { name: "B", status: "new" }, { key: org.apiKey })
      const all = yield* get("/api/v1/clients?page=&pageSize=&updatedSince=&status=", { key: org.apiKey })
      expect({ status: all.status, total: all.body.pagination.total, pageSize: all.body.pagination.pageSize }).toEqual({ status: 200, total: 2, pageSize: 25 })
      const active = yield* get("/api/v1/clients?page=&status=active", { key: org.apiKey })
      expect(active.body.data.map((c: { name: string }) => c.name)).toEqual(["A"])
      const bad = yield* get("/api/v1/clients?status=bogus&page=", { key: org.apiKey })
      expect(bad.status).toBe(400)
    }))
})
