import { expect, layer } from "@effect/vitest"
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

