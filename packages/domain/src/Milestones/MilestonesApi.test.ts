import { describe, expect, it } from "@effect/vitest"
import { HttpApi, OpenApi } from "effect/http-api"
import { declaredEndpoints } from "../Common/Auth.js"
import { MilestonesApi } from "./MilestonesApi.js"

describe("MilestonesApi", () => {
  const api = HttpApi.make("milestones").add(MilestonesApi)

  it("has the five operations of section 4, each with its scope", () => {
    expect(declaredEndpoints(api)).toEqual([
      { method: "GET", path: "/api/v1/milestones", scope: "milestones:read" },
      { method: "POST", path: "/api/v1/milestones", scope: "milestones:write" },
      { method: "GET", path: "/api/v1/milestones/:id", scope: "milestones:read" },
      { method: "PATCH", path: "/api/v1/milestones/:id", scope: "milestones:write" },
      { method: "DELETE", path: "/api/v1/milestones/:id", scope: "milestones:write" }
    ])
  })

  it("is described in the OpenAPI document, with the bodies' schemas", () => {
    const spec = OpenApi.fromApi(api)
    expect(Object.keys(spec.paths).sort()).toEqual(["/api/v1/milestones", "/api/v1/milestones/{id}"])
    expect(Object.keys(spec.components.schemas)).toEqual(expect.arrayContaining(["MilestoneEncoded", "MilestoneCreate", "MilestoneUpdate", "MilestoneList"]))
  })
})
