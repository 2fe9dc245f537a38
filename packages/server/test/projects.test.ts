import { describe, expect, it, layer } from "@effect/vitest"
import { ProjectCreate, ProjectUpdate, strict } from "@bizops/domain"
import { Arbitraries, created, del, expectError, expectInvalid, get, newClient, NIL, patch, post, request, TestServer, TestServerLive, TIMESTAMP } from "@bizops/testkit"
import { Effect, Schema } from "effect"

/** A 400 linked_record_not_found on clientId. */
const expectUnknownClient = (res: { status: number; headers: Headers; body: any }) => {
  expectError(res, 400, "invalid_request", "linked_record_not_found")
  expect(res.body.error.details.field).toBe("clientId")
}

const newProject = (key: string, body: Record<string, unknown>) => created("/api/v1/projects", key, body)

layer(TestServerLive)("projects", (it) => {
  it.effect("create, get, update, list and delete a project", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      expect(client.businessId).toBe(org.businessId)

      const minimal = yield* post("/api/v1/projects", { name: "Website", clientId: client.id }, { key: org.apiKey })
      expect(minimal.status).toBe(201)
      expect(minimal.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: "Website",
        clientId: client.id,
        businessId: client.businessId,
        status: "active",
        pipelineStageId: null,
        startDate: null,
        endDate: null,
        eventDate: null,
        contractValue: null,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })

      const stage = "3f1c1e9a-5b2d-4c6e-8f00-1a2b3c4d5e6f"
      const created = yield* post("/api/v1/projects", {
        name: "Wedding",
        clientId: client.id,
        status: "paused",
        pipelineStageId: stage,
        startDate: "2026-03-01",
        endDate: "2026-06-30",
        eventDate: "2026-06-20",
        contractValue: 1234.56
      }, { key: org.apiKey })
      expect(created.status).toBe(201)
      expect(created.body).toEqual({
        id: expect.any(String),
        name: "Wedding",
        clientId: client.id,
        businessId: org.businessId,
        status: "paused",
        pipelineStageId: stage,
        startDate: "2026-03-01",
        endDate: "2026-06-30",
        eventDate: "2026-06-20",
        contractValue: 1234.56,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      const id = created.body.id

      const fetched = yield* get(`/api/v1/projects/${id}`, { bearer: org.apiKey })
      expect(fetched.status).toBe(200)
      expect(fetched.body).toEqual(created.body)

      const updated = yield* patch(`/api/v1/projects/${id}`, {
        name: "Wedding (final)",
        status: "completed",
        eventDate: null,
        pipelineStageId: null,
        contractValue: 0
      }, { key: org.apiKey })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({
        ...created.body,
        name: "Wedding (final)",
        status: "completed",
        eventDate: null,
        pipelineStageId: null,
        contractValue: 0,
        updatedAt: expect.stringMatching(TIMESTAMP)
      })
      expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt))
      expect((yield* get(`/api/v1/projects/${id}`, { key: org.apiKey })).body).toEqual(updated.body)

      const unchanged = yield* patch(`/api/v1/projects/${id}`, {}, { key: org.apiKey })
      expect(unchanged.status).toBe(200)
      expect(unchanged.body).toEqual(updated.body)

      const cleared = yield* patch(`/api/v1/projects/${id}`, { contractValue: null, startDate: null, endDate: null }, { key: org.apiKey })
      expect(cleared.status).toBe(200)
      expect(cleared.body).toMatchObject({ contractValue: null, startDate: null, endDate: null, status: "completed" })

      const list = yield* get("/api/v1/projects", { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(list.body).toEqual({
        data: [cleared.body, minimal.body],
        pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false }
      })

      const removed = yield* del(`/api/v1/projects/${id}`, { key: org.apiKey })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/projects/${id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/projects/${id}`, { name: "Back" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/projects/${id}`, { key: org.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/projects", { key: org.apiKey })).body.data.map((p: any) => p.id)).toEqual([minimal.body.id])
    }))

  it.effect("400 on every bound, bad dates and amounts, unknown and read-only fields on create; nothing is created", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const c = client.id
      const bad: Array<[unknown, string]> = [
        [{ clientId: c }, "name"],
        [{ name: "", clientId: c }, "name"],
        [{ name: "x".repeat(201), clientId: c }, "name"],
        [{ name: 5, clientId: c }, "name"],
        [{ name: "A\u0000B", clientId: c }, "name"],
        [{ name: "A" }, "clientId"],
        [{ name: "A", clientId: null }, "clientId"],
        [{ name: "A", clientId: "not-a-uuid" }, "clientId"],
        [{ name: "A", clientId: c, status: "done" }, "status"],
        [{ name: "A", clientId: c, status: null }, "status"],
        [{ name: "A", clientId: c, pipelineStageId: "stage-1" }, "pipelineStageId"],
        [{ name: "A", clientId: c, startDate: "2026-02-30" }, "startDate"],
        [{ name: "A", clientId: c, startDate: "2023-02-29" }, "startDate"],
        [{ name: "A", clientId: c, startDate: "2026-13-01" }, "startDate"],
        [{ name: "A", clientId: c, startDate: "2026-1-05" }, "startDate"],
        [{ name: "A", clientId: c, startDate: "2026-01-05T00:00:00Z" }, "startDate"],
        [{ name: "A", clientId: c, startDate: "01/05/2026" }, "startDate"],
        [{ name: "A", clientId: c, endDate: "2026-04-31" }, "endDate"],
        [{ name: "A", clientId: c, endDate: "2026-00-10" }, "endDate"],
        [{ name: "A", clientId: c, eventDate: "2026-02-30" }, "eventDate"],
        [{ name: "A", clientId: c, eventDate: "tomorrow" }, "eventDate"],
        [{ name: "A", clientId: c, eventDate: 20260101 }, "eventDate"],
        [{ name: "A", clientId: c, startDate: "2026-05-02", endDate: "2026-05-01" }, "endDate"],
        [{ name: "A", clientId: c, startDate: "2027-01-01", endDate: "2026-12-31" }, "endDate"],
        [{ name: "A", clientId: c, contractValue: -0.01 }, "contractValue"],
        [{ name: "A", clientId: c, contractValue: -1 }, "contractValue"],
        [{ name: "A", clientId: c, contractValue: 1.234 }, "contractValue"],
        [{ name: "A", clientId: c, contractValue: 0.001 }, "contractValue"],
        [{ name: "A", clientId: c, contractValue: "100" }, "contractValue"],
        [{ name: "A", clientId: c, contractValue: 9_000_000_000_000.01 }, "contractValue"],
        [{ name: "A", clientId: c, nmae: "typo" }, "nmae"],
        [{ name: "A", clientId: c, id: NIL }, "id"],
        [{ name: "A", clientId: c, createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ name: "A", clientId: c, updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"],
        [{ name: "A", clientId: c, businessId: org.businessId }, "businessId"]
      ]
      for (const [body, field] of bad) {
        expectInvalid(yield* post("/api/v1/projects", body, { key: org.apiKey }), field)
      }
      expectError(yield* post("/api/v1/projects", [], { key: org.apiKey }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/projects", { key: org.apiKey, raw: "{\"name\":", headers: { "content-type": "application/json" } }), 400, "invalid_request")
      expectError(yield* request("POST", "/api/v1/projects", { key: org.apiKey, raw: "name=A", headers: { "content-type": "text/plain" } }), 400, "invalid_request")
      expectUnknownClient(yield* post("/api/v1/projects", { name: "Ghost", clientId: NIL }, { key: org.apiKey }))
      expect((yield* get("/api/v1/projects", { key: org.apiKey })).body.pagination.total).toBe(0)

      // The bounds themselves are accepted.
      const edge = yield* post("/api/v1/projects", {
        name: "x".repeat(200),
        clientId: c,
        startDate: "2024-02-29",
        endDate: "2024-02-29",
        eventDate: "2026-12-31",
        contractValue: 9_000_000_000_000
      }, { key: org.apiKey })
      expect(edge.status).toBe(201)
      expect(edge.body).toMatchObject({ startDate: "2024-02-29", endDate: "2024-02-29", eventDate: "2026-12-31", contractValue: 9_000_000_000_000 })
      expect(edge.body.name).toHaveLength(200)
      const list = yield* get("/api/v1/projects", { key: org.apiKey })
      expect(list.body.data.map((p: any) => p.id)).toEqual([edge.body.id])
    }))

  it.effect("PATCH validates every field, checks dates against the stored ones, and changes nothing on a bad body", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const project = yield* newProject(org.apiKey, {
        name: "Keep",
        clientId: client.id,
        startDate: "2026-03-10",
        endDate: "2026-03-20",
        contractValue: 500
      })
      const path = `/api/v1/projects/${project.id}`
      const bad: Array<[unknown, string]> = [
        [{ name: "" }, "name"],
        [{ name: null }, "name"],
        [{ name: "x".repeat(201) }, "name"],
        [{ clientId: null }, "clientId"],
        [{ clientId: "abc" }, "clientId"],
        [{ status: "archived" }, "status"],
        [{ startDate: "2026-02-30" }, "startDate"],
        [{ endDate: "2026-03-32" }, "endDate"],
        [{ eventDate: "2026-02-29" }, "eventDate"],
        [{ contractValue: -5 }, "contractValue"],
        [{ contractValue: 10.005 }, "contractValue"],
        [{ startDate: "2026-04-02", endDate: "2026-04-01" }, "endDate"],
        [{ endDate: "2026-03-09" }, "endDate"],
        [{ id: NIL }, "id"],
        [{ createdAt: "2026-01-01T00:00:00.000Z" }, "createdAt"],
        [{ updatedAt: "2026-01-01T00:00:00.000Z" }, "updatedAt"],
        [{ businessId: org.businessId }, "businessId"],
        [{ name: "Ok", extra: 1 }, "extra"]
      ]
      for (const [body, field] of bad) {
        expectInvalid(yield* patch(path, body, { key: org.apiKey }), field)
      }
      // Only startDate is sent; it falls after the stored endDate.
      const lateStart = yield* patch(path, { startDate: "2026-03-21" }, { key: org.apiKey })
      expectError(lateStart, 400, "invalid_request", "invalid_payload")
      expect(["startDate", "endDate"]).toContain(lateStart.body.error.details.issues[0].path[0])
      // With a name alongside, still refused.
      expectInvalid(yield* patch(path, { name: "Changed", endDate: "2026-01-01" }, { key: org.apiKey }), "endDate")
      expectUnknownClient(yield* patch(path, { clientId: NIL }, { key: org.apiKey }))
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(project)

      // The stored dates are the reference: each date alone may move within them.
      const sameDay = yield* patch(path, { endDate: "2026-03-10" }, { key: org.apiKey })
      expect(sameDay.status).toBe(200)
      expect(sameDay.body).toMatchObject({ startDate: "2026-03-10", endDate: "2026-03-10" })
      const earlier = yield* patch(path, { startDate: "2026-03-01" }, { key: org.apiKey })
      expect(earlier.status).toBe(200)
      expect(earlier.body).toMatchObject({ startDate: "2026-03-01", endDate: "2026-03-10" })
      // Clearing the end lets the start move past it, and both may move together.
      const open = yield* patch(path, { startDate: "2026-05-01", endDate: null }, { key: org.apiKey })
      expect(open.status).toBe(200)
      expect(open.body).toMatchObject({ startDate: "2026-05-01", endDate: null })
      const anyEnd = yield* patch(path, { endDate: "2026-05-01" }, { key: org.apiKey })
      expect(anyEnd.body).toMatchObject({ startDate: "2026-05-01", endDate: "2026-05-01" })
      expectInvalid(yield* patch(path, { endDate: "2026-04-30" }, { key: org.apiKey }), "endDate")
      const both = yield* patch(path, { startDate: "2027-01-01", endDate: "2027-02-01" }, { key: org.apiKey })
      expect(both.body).toMatchObject({ startDate: "2027-01-01", endDate: "2027-02-01" })
      expect((yield* get(path, { key: org.apiKey })).body).toEqual(both.body)

      expectError(yield* patch(`/api/v1/projects/${NIL}`, { name: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get(`/api/v1/projects/${NIL}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/projects/${NIL}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* get("/api/v1/projects/not-a-uuid", { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch("/api/v1/projects/not-a-uuid", { name: "X" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del("/api/v1/projects/not-a-uuid", { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("401 without or with a bad key; 403 without the projects scope, naming it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const client = yield* newClient(owner.apiKey)
      const project = yield* newProject(owner.apiKey, { name: "Scoped", clientId: client.id })

      const missing = yield* get("/api/v1/projects")
      expectError(missing, 401, "unauthorized")
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/)
      expectError(yield* post("/api/v1/projects", { name: "A", clientId: client.id }), 401, "unauthorized")
      expectError(yield* get(`/api/v1/projects/${project.id}`), 401, "unauthorized")
      expectError(yield* patch(`/api/v1/projects/${project.id}`, { name: "B" }), 401, "unauthorized")
      expectError(yield* del(`/api/v1/projects/${project.id}`), 401, "unauthorized")
      expectError(yield* get("/api/v1/projects", { key: "bok_nope" }), 401, "unauthorized")
      expectError(yield* get("/api/v1/projects", { bearer: owner.apiKey.slice(0, -1) + "x" }), 401, "unauthorized")
      expectError(yield* patch(`/api/v1/projects/${project.id}`, { name: "B" }, { key: "bok_nope" }), 401, "unauthorized")

      const reader = yield* server.organization(["projects:read"])
      expect((yield* get("/api/v1/projects", { key: reader.apiKey })).status).toBe(200)
      for (
        const res of [
          yield* post("/api/v1/projects", { name: "A", clientId: NIL }, { key: reader.apiKey }),
          yield* patch(`/api/v1/projects/${NIL}`, { name: "A" }, { key: reader.apiKey }),
          yield* del(`/api/v1/projects/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("projects:write")
      }

      const writer = yield* server.organization(["projects:write", "clients:write"])
      for (
        const res of [
          yield* get("/api/v1/projects", { key: writer.apiKey }),
          yield* get(`/api/v1/projects/${NIL}`, { key: writer.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("projects:read")
      }
      const writerClient = yield* newClient(writer.apiKey)
      expect((yield* post("/api/v1/projects", { name: "W", clientId: writerClient.id }, { key: writer.apiKey })).status).toBe(201)

      const clientsOnly = yield* server.organization(["clients:read", "clients:write", "contacts:read", "contacts:write"])
      const forbiddenRead = yield* get("/api/v1/projects", { key: clientsOnly.apiKey })
      expectError(forbiddenRead, 403, "forbidden")
      expect(forbiddenRead.body.error.message).toContain("projects:read")
      const forbiddenWrite = yield* post("/api/v1/projects", { name: "A", clientId: NIL }, { key: clientsOnly.apiKey })
      expectError(forbiddenWrite, 403, "forbidden")
      expect(forbiddenWrite.body.error.message).toContain("projects:write")

      expect((yield* get(`/api/v1/projects/${project.id}`, { key: owner.apiKey })).body).toEqual(project)
      expect((yield* get("/api/v1/projects", { key: owner.apiKey })).body.pagination.total).toBe(1)
    }))

  it.effect("another organization's project is 404 on every operation and never listed; its client cannot be named", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirClient = yield* newClient(theirs.apiKey, { name: "Theirs" })
      const theirProject = yield* newProject(theirs.apiKey, { name: "Their job", clientId: theirClient.id })
      expect(theirProject.businessId).toBe(theirs.businessId)

      expectError(yield* get(`/api/v1/projects/${theirProject.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/projects/${theirProject.id}`, { name: "Mine now" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/projects/${theirProject.id}`, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/projects", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/projects?clientId=${theirClient.id}`, { key: mine.apiKey })).body.data).toEqual([])

      expectUnknownClient(yield* post("/api/v1/projects", { name: "Spy", clientId: theirClient.id }, { key: mine.apiKey }))
      const myClient = yield* newClient(mine.apiKey, { name: "Mine" })
      const myProject = yield* newProject(mine.apiKey, { name: "My job", clientId: myClient.id })
      expect(myProject.businessId).toBe(mine.businessId)
      expectUnknownClient(yield* patch(`/api/v1/projects/${myProject.id}`, { clientId: theirClient.id }, { key: mine.apiKey }))
      expectUnknownClient(yield* patch(`/api/v1/projects/${myProject.id}`, { clientId: theirClient.id, name: "Moved" }, { key: mine.apiKey }))

      expect((yield* get("/api/v1/projects", { key: mine.apiKey })).body.data).toEqual([myProject])
      expect((yield* get(`/api/v1/projects/${theirProject.id}`, { key: theirs.apiKey })).body).toEqual(theirProject)
      expect((yield* get("/api/v1/projects", { key: theirs.apiKey })).body.data).toEqual([theirProject])
    }))

  it.effect("a project's business is its client's; PATCH clientId moves it within the organization", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const a = yield* newClient(org.apiKey, { name: "A" })
      const b = yield* newClient(org.apiKey, { name: "B" })
      const project = yield* newProject(org.apiKey, { name: "Job", clientId: a.id, contractValue: 19.99 })
      expect(project.businessId).toBe(a.businessId)

      const moved = yield* patch(`/api/v1/projects/${project.id}`, { clientId: b.id }, { key: org.apiKey })
      expect(moved.status).toBe(200)
      expect(moved.body).toEqual({ ...project, clientId: b.id, businessId: b.businessId, updatedAt: expect.stringMatching(TIMESTAMP) })
      expect((yield* get(`/api/v1/projects/${project.id}`, { key: org.apiKey })).body).toEqual(moved.body)
      expect((yield* get(`/api/v1/projects?clientId=${a.id}`, { key: org.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/projects?clientId=${b.id}`, { key: org.apiKey })).body.data).toEqual([moved.body])

      // The client of a project cannot be deleted while the project points at it.
      expectError(yield* del(`/api/v1/clients/${b.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expect((yield* del(`/api/v1/clients/${a.id}`, { key: org.apiKey })).status).toBe(204)
    }))

  it.effect("contractValue round-trips exactly", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      const values = [1234.56, 0.1, 0.07, 19.99, 0.01, 0, 1.1, 2.67, 100.5, 999999.99, 12345678901.23, 9_000_000_000_000, 0.3, 4.35, 1e3]
      for (const contractValue of values) {
        const created = yield* newProject(org.apiKey, { name: `V ${contractValue}`, clientId: client.id, contractValue })
        expect(created.contractValue).toBe(contractValue)
        const read = (yield* get(`/api/v1/projects/${created.id}`, { key: org.apiKey })).body
        expect(read.contractValue).toBe(contractValue)
        expect(JSON.stringify(read.contractValue)).toBe(JSON.stringify(contractValue))
      }
      const project = yield* newProject(org.apiKey, { name: "Patch", clientId: client.id })
      for (const contractValue of [0.07, 19.99, 0.1, 1234.56]) {
        const updated = yield* patch(`/api/v1/projects/${project.id}`, { contractValue }, { key: org.apiKey })
        expect(updated.status).toBe(200)
        expect(updated.body.contractValue).toBe(contractValue)
        expect((yield* get(`/api/v1/projects/${project.id}`, { key: org.apiKey })).body.contractValue).toBe(contractValue)
      }
      // The list gives the same numbers.
      const listed = (yield* get("/api/v1/projects?pageSize=100", { key: org.apiKey })).body.data
      const byName = new Map<string, number | null>(listed.map((p: any) => [p.name, p.contractValue]))
      for (const contractValue of values) expect(byName.get(`V ${contractValue}`)).toBe(contractValue)
      expect(byName.get("Patch")).toBe(1234.56)
    }))

  it.effect("any amount with at most 2 decimals up to the maximum is accepted, whatever its binary rounding", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const client = yield* newClient(org.apiKey)
      // Each has at most 2 decimals, but amount * 100 is not an integer in binary floating point
      // (151886384.2 * 100 === 15188638419.999998).
      for (const contractValue of [151886384.2, 607538411.94, 322771691.04, 288141875843.91, 5595213846540.52]) {
        const created = yield* post("/api/v1/projects", { name: `V ${contractValue}`, clientId: client.id, contractValue }, { key: org.apiKey })
        expect({ contractValue, status: created.status }).toEqual({ contractValue, status: 201 })
        expect(created.body.contractValue).toBe(contractValue)
        expect((yield* get(`/api/v1/projects/${created.body.id}`, { key: org.apiKey })).body.contractValue).toBe(contractValue)
      }
    }))

  it.effect("pagination: defaults, edges, past the end, newest first; filters clientId and status", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const a = yield* newClient(org.apiKey, { name: "A" })
      const b = yield* newClient(org.apiKey, { name: "B" })
      const specs: Array<[string, string]> = [
        [a.id, "active"],
        [b.id, "paused"],
        [a.id, "completed"],
        [b.id, "active"],
        [a.id, "active"]
      ]
      const ids: Array<string> = []
      for (const [i, [clientId, status]] of specs.entries()) {
        ids.push((yield* newProject(org.apiKey, { name: `P${i}`, clientId, status })).id)
      }
      const page1 = yield* get("/api/v1/projects?pageSize=2", { key: org.apiKey })
      expect(page1.status).toBe(200)
      expect(page1.body.data.map((p: any) => p.id)).toEqual([ids[4], ids[3]])
      expect(page1.body.pagination).toEqual({ page: 1, pageSize: 2, total: 5, totalPages: 3, hasMore: true })
      const page3 = yield* get("/api/v1/projects?pageSize=2&page=3", { key: org.apiKey })
      expect(page3.body.data.map((p: any) => p.id)).toEqual([ids[0]])
      expect(page3.body.pagination).toEqual({ page: 3, pageSize: 2, total: 5, totalPages: 3, hasMore: false })
      const past = yield* get("/api/v1/projects?pageSize=2&page=9", { key: org.apiKey })
      expect(past.status).toBe(200)
      expect(past.body).toEqual({ data: [], pagination: { page: 9, pageSize: 2, total: 5, totalPages: 3, hasMore: false } })
      const max = yield* get("/api/v1/projects?pageSize=100&unknownParam=x", { key: org.apiKey })
      expect(max.status).toBe(200)
      expect(max.body.pagination).toEqual({ page: 1, pageSize: 100, total: 5, totalPages: 1, hasMore: false })

      for (
        const query of [
          "pageSize=0",
          "pageSize=101",
          "pageSize=abc",
          "pageSize=-1",
          "pageSize=",
          "page=0",
          "page=-1",
          "page=1.5",
          "page=abc",
          "clientId=abc",
          "clientId=",
          "status=done",
          "status=ACTIVE",
          "status=",
          "updatedSince=yesterday"
        ]
      ) {
        expectError(yield* get(`/api/v1/projects?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
      expectError(yield* get("/api/v1/projects?status=archived", { key: org.apiKey }), 400, "invalid_request", "invalid_payload")

      const active = yield* get("/api/v1/projects?status=active", { key: org.apiKey })
      expect(active.body.data.map((p: any) => p.id)).toEqual([ids[4], ids[3], ids[0]])
      expect(active.body.pagination).toEqual({ page: 1, pageSize: 25, total: 3, totalPages: 1, hasMore: false })
      expect((yield* get("/api/v1/projects?status=paused", { key: org.apiKey })).body.data.map((p: any) => p.id)).toEqual([ids[1]])
      expect((yield* get("/api/v1/projects?status=completed", { key: org.apiKey })).body.data.map((p: any) => p.id)).toEqual([ids[2]])

      const ofA = yield* get(`/api/v1/projects?clientId=${a.id}`, { key: org.apiKey })
      expect(ofA.body.data.map((p: any) => p.id)).toEqual([ids[4], ids[2], ids[0]])
      const activeOfA = yield* get(`/api/v1/projects?clientId=${a.id}&status=active&pageSize=1&page=2`, { key: org.apiKey })
      expect(activeOfA.body.data.map((p: any) => p.id)).toEqual([ids[0]])
      expect(activeOfA.body.pagination).toEqual({ page: 2, pageSize: 1, total: 2, totalPages: 2, hasMore: false })
      const activeOfB = yield* get(`/api/v1/projects?clientId=${b.id}&status=active`, { key: org.apiKey })
      expect(activeOfB.body.data.map((p: any) => p.id)).toEqual([ids[3]])
      expect((yield* get(`/api/v1/projects?clientId=${b.id}&status=completed`, { key: org.apiKey })).body).toEqual({
        data: [],
        pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false }
      })
      expect((yield* get(`/api/v1/projects?clientId=${NIL}`, { key: org.apiKey })).body.data).toEqual([])

      const empty = yield* (yield* TestServer).organization()
      expect((yield* get("/api/v1/projects", { key: empty.apiKey })).body).toEqual({
        data: [],
        pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, hasMore: false }
      })
    }))

  it.effect.prop(
    "every schema-valid create body is accepted and read back equal",
    [Arbitraries.projectCreate],
    ([body]) =>
      Effect.gen(function*() {
        const org = yield* (yield* TestServer).organization()
        const client = yield* newClient(org.apiKey)
        const input = { ...body, clientId: client.id }
        const created = yield* post("/api/v1/projects", input, { key: org.apiKey })
        expect(created.status).toBe(201)
        const read = (yield* get(`/api/v1/projects/${created.body.id}`, { key: org.apiKey })).body
        expect(read).toEqual(created.body)
        expect(read).toEqual({
          id: created.body.id,
          name: body.name,
          clientId: client.id,
          businessId: client.businessId,
          status: body.status ?? "active",
          pipelineStageId: body.pipelineStageId ?? null,
          startDate: body.startDate ?? null,
          endDate: body.endDate ?? null,
          eventDate: body.eventDate ?? null,
          contractValue: body.contractValue ?? null,
          createdAt: expect.stringMatching(TIMESTAMP),
          updatedAt: expect.stringMatching(TIMESTAMP)
        })
      }).pipe(Effect.catchDefect(Effect.die)),
    { arbitrary: { runs: 25 } }
  )
})

describe("decoding", () => {
  it("ProjectCreate and ProjectUpdate reject unknown fields and dates out of order", () => {
    const clientId = "3f1c1e9a-5b2d-4c6e-8f00-1a2b3c4d5e6f"
    expect(() => Schema.decodeUnknownSync(ProjectCreate, strict)({ name: "A", clientId, extra: 1 })).toThrow()
    expect(() => Schema.decodeUnknownSync(ProjectCreate, strict)({ name: "A", clientId, startDate: "2026-02-02", endDate: "2026-02-01" })).toThrow()
    expect(() => Schema.decodeUnknownSync(ProjectUpdate, strict)({ businessId: clientId })).toThrow()
    expect(() => Schema.decodeUnknownSync(ProjectUpdate, strict)({ startDate: "2026-02-30" })).toThrow()
  })
})
