import { expect, layer } from "@effect/vitest"
import { del, effectProp, expectError, expectInvalid, get, makeTestServer, NIL, patch, post, receiver, runScript, TestServer, TIMESTAMP } from "@bizops/testkit"
import { created, newClientProject, realSleep, subscribe, verified } from "@bizops/testkit"
import { Effect } from "effect"
import * as fc from "fast-check"

/**
 * Milestones (issue 16): the steps of a project or a client document, over HTTP as a client would use
 * them. Client documents, the other kind of parent, arrive through the real import command line.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const newMilestone = (key: string, body: Record<string, unknown>) => created("/api/v1/milestones", key, body)

/** Imports client documents through the command line (standard input); their ids in file order. */
const importDocuments = (organizationId: string, records: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const run = yield* runScript("scripts/admin.ts", ["import", "client-documents", "--org", organizationId, "--file", "-"], {
      DATABASE_URL: server.databaseUrl
    }, { input: JSON.stringify(records) })
    expect(run.stderr.includes("\"error\"") ? run.stderr : "").toBe("")
    expect(run.code).toBe(0)
    return JSON.parse(run.stdout).ids as Array<string>
  })

/** A 400 linked_record_not_found on parentId. */
const expectUnknownParent = (res: { status: number; headers: Headers; body: any }) => {
  expectError(res, 400, "invalid_request", "linked_record_not_found")
  expect(res.body.error.details.field).toBe("parentId")
}

const ids = (res: { body: any }) => res.body.data.map((m: { id: string }) => m.id)

interface Ordered {
  readonly id: string
  readonly sortOrder: number
  readonly createdAt: string
}

/** The documented order of a parent's milestones: sortOrder, then createdAt, then id. */
const parentOrder = (milestones: ReadonlyArray<Ordered>) =>
  [...milestones].sort((x, y) =>
    x.sortOrder - y.sortOrder || Date.parse(x.createdAt) - Date.parse(y.createdAt) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)
  ).map((m) => m.id)

layer(makeTestServer({ config: { webhooksAllowInsecure: true } }))("milestones", (it) => {
  it.effect("create, get, update, list and delete a project's milestone", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)

      const minimal = yield* post("/api/v1/milestones", { parentType: "projects", parentId: project.id, title: "Deposit" }, { key: org.apiKey })
      expect(minimal.status).toBe(201)
      expect(minimal.body).toEqual({
        id: expect.stringMatching(UUID),
        parentType: "projects",
        parentId: project.id,
        title: "Deposit",
        description: null,
        dueDate: null,
        amount: null,
        status: "pending",
        completedAt: null,
        sortOrder: 0,
        createdAt: expect.stringMatching(TIMESTAMP),
        updatedAt: expect.stringMatching(TIMESTAMP)
      })

      const full = yield* newMilestone(org.apiKey, {
        parentType: "projects",
        parentId: project.id,
        title: "Final payment",
        description: "Balance due after delivery",
        dueDate: "2027-06-30",
        amount: 1234.56,
        sortOrder: 7
      })
      expect(full).toMatchObject({ title: "Final payment", description: "Balance due after delivery", dueDate: "2027-06-30", amount: 1234.56, sortOrder: 7, status: "pending" })
      expect((yield* get(`/api/v1/milestones/${full.id}`, { bearer: org.apiKey })).body).toEqual(full)

      const updated = yield* patch(`/api/v1/milestones/${full.id}`, { title: "Balance", description: null, dueDate: null, amount: 0, sortOrder: 3 }, { key: org.apiKey })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({ ...full, title: "Balance", description: null, dueDate: null, amount: 0, sortOrder: 3, updatedAt: expect.stringMatching(TIMESTAMP) })
      expect((yield* get(`/api/v1/milestones/${full.id}`, { key: org.apiKey })).body).toEqual(updated.body)

      // An empty PATCH changes nothing, not even updatedAt.
      const unchanged = yield* patch(`/api/v1/milestones/${full.id}`, {}, { key: org.apiKey })
      expect(unchanged.status).toBe(200)
      expect(unchanged.body).toEqual(updated.body)

      const list = yield* get("/api/v1/milestones", { key: org.apiKey })
      expect(list.status).toBe(200)
      expect(list.body).toEqual({ data: [updated.body, minimal.body], pagination: { page: 1, pageSize: 25, total: 2, totalPages: 1, hasMore: false } })

      const removed = yield* del(`/api/v1/milestones/${full.id}`, { key: org.apiKey })
      expect(removed.status).toBe(204)
      expect(removed.text).toBe("")
      expectError(yield* get(`/api/v1/milestones/${full.id}`, { key: org.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/milestones/${full.id}`, { title: "Back" }, { key: org.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/milestones/${full.id}`, { key: org.apiKey }), 404, "not_found")
      expect(ids(yield* get("/api/v1/milestones", { key: org.apiKey }))).toEqual([minimal.body.id])
    }))

  it.effect("completing stamps completedAt, completing again keeps it, reopening clears it; created completed is stamped", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const milestone = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: "Shoot" })

      const before = Date.now()
      const completed = yield* patch(`/api/v1/milestones/${milestone.id}`, { status: "completed" }, { key: org.apiKey })
      expect(completed.status).toBe(200)
      expect(completed.body.status).toBe("completed")
      expect(completed.body.completedAt).toMatch(TIMESTAMP)
      expect(Date.parse(completed.body.completedAt)).toBeGreaterThanOrEqual(before - 5)
      expect(Date.parse(completed.body.completedAt)).toBeLessThanOrEqual(Date.now() + 5)

      yield* realSleep(5)
      const again = yield* patch(`/api/v1/milestones/${milestone.id}`, { status: "completed", title: "Shoot done" }, { key: org.apiKey })
      expect(again.body).toMatchObject({ status: "completed", completedAt: completed.body.completedAt, title: "Shoot done" })
      const other = yield* patch(`/api/v1/milestones/${milestone.id}`, { dueDate: "2027-01-01" }, { key: org.apiKey })
      expect(other.body.completedAt).toBe(completed.body.completedAt)

      const reopened = yield* patch(`/api/v1/milestones/${milestone.id}`, { status: "pending" }, { key: org.apiKey })
      expect(reopened.body).toMatchObject({ status: "pending", completedAt: null })
      expect((yield* get(`/api/v1/milestones/${milestone.id}`, { key: org.apiKey })).body).toEqual(reopened.body)

      yield* realSleep(5)
      const recompleted = yield* patch(`/api/v1/milestones/${milestone.id}`, { status: "completed" }, { key: org.apiKey })
      expect(Date.parse(recompleted.body.completedAt)).toBeGreaterThan(Date.parse(completed.body.completedAt))

      const bornDone = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: "Booked", status: "completed" })
      expect(bornDone.completedAt).toMatch(TIMESTAMP)
      expect(Math.abs(Date.parse(bornDone.completedAt) - Date.parse(bornDone.createdAt))).toBeLessThan(1000)
      const bornPending = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: "Later", status: "pending" })
      expect(bornPending.completedAt).toBeNull()
    }))

  it.effect("a parent's milestones list by sortOrder; sortOrder defaults to after the last; newest first without parentId; filters", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const other = yield* newClientProject(org.apiKey)
      const m = (title: string, extra: Record<string, unknown> = {}) =>
        newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title, ...extra })

      const a = yield* m("a")
      const b = yield* m("b", { sortOrder: 10 })
      const c = yield* m("c")
      const d = yield* m("d", { sortOrder: 5, status: "completed" })
      const e = yield* m("e", { sortOrder: 5 })
      const elsewhere = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: other.id, title: "elsewhere" })
      expect([a.sortOrder, b.sortOrder, c.sortOrder, d.sortOrder, e.sortOrder, elsewhere.sortOrder]).toEqual([0, 10, 11, 5, 5, 0])

      // Ties in sortOrder (d and e) by creation.
      const ordered = parentOrder([a, b, c, d, e])
      expect(new Set([ordered[1], ordered[2]])).toEqual(new Set([d.id, e.id]))
      expect([ordered[0], ordered[3], ordered[4]]).toEqual([a.id, b.id, c.id])
      expect(ids(yield* get(`/api/v1/milestones?parentId=${project.id}`, { key: org.apiKey }))).toEqual(ordered)
      expect(ids(yield* get(`/api/v1/milestones?parentType=projects&parentId=${project.id}`, { key: org.apiKey }))).toEqual(ordered)
      expect(ids(yield* get(`/api/v1/milestones?parentType=client-documents&parentId=${project.id}`, { key: org.apiKey }))).toEqual([])
      const pageTwo = yield* get(`/api/v1/milestones?parentId=${project.id}&page=2&pageSize=2`, { key: org.apiKey })
      expect(ids(pageTwo)).toEqual(ordered.slice(2, 4))
      expect(pageTwo.body.pagination).toEqual({ page: 2, pageSize: 2, total: 5, totalPages: 3, hasMore: true })

      // Moving one changes the order.
      const moved = (yield* patch(`/api/v1/milestones/${c.id}`, { sortOrder: 1 }, { key: org.apiKey })).body
      expect(ids(yield* get(`/api/v1/milestones?parentId=${project.id}`, { key: org.apiKey }))).toEqual(parentOrder([a, b, moved, d, e]))
      expect(ids(yield* get(`/api/v1/milestones?parentId=${project.id}`, { key: org.apiKey })).slice(0, 2)).toEqual([a.id, c.id])

      // Without parentId: newest first.
      expect(ids(yield* get("/api/v1/milestones", { key: org.apiKey }))).toEqual([elsewhere, e, d, c, b, a].map((x) => x.id))
      expect(ids(yield* get("/api/v1/milestones?status=completed", { key: org.apiKey }))).toEqual([d.id])
      expect(ids(yield* get("/api/v1/milestones?parentType=projects&status=pending", { key: org.apiKey }))).toEqual([elsewhere, e, c, b, a].map((x) => x.id))
      expect(ids(yield* get(`/api/v1/milestones?parentId=${project.id}&status=completed`, { key: org.apiKey }))).toEqual([d.id])
      expect(ids(yield* get("/api/v1/milestones?parentType=client-documents", { key: org.apiKey }))).toEqual([])
      for (const query of ["parentType=tasks", "parentId=nope", "status=done", "page=0"]) {
        expectError(yield* get(`/api/v1/milestones?${query}`, { key: org.apiKey }), 400, "invalid_request")
      }
    }))

  it.effect("concurrent creations on one parent each get the next sortOrder", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const created = yield* Effect.forEach(
        Array.from({ length: 8 }, (_, i) => i),
        (i) => newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: `step ${i}` }),
        { concurrency: "unbounded" }
      )
      expect(created.map((m) => m.sortOrder).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    }))

  it.effect("a client document is a parent; a template, another organization's record or a missing one is 400 linked_record_not_found", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* server.organization()
      const theirs = yield* server.organization()
      const [document, template] = yield* importDocuments(org.organizationId, [
        { externalId: "sf-1", title: "Proposal", status: "sent" },
        { externalId: "sf-template", title: "Template", status: "draft", isTemplate: true }
      ])
      const [theirDocument] = yield* importDocuments(theirs.organizationId, [{ externalId: "sf-1", status: "draft" }])
      const theirProject = yield* newClientProject(theirs.apiKey)
      const project = yield* newClientProject(org.apiKey)

      const onDocument = yield* newMilestone(org.apiKey, { parentType: "client-documents", parentId: document, title: "Signed" })
      expect(onDocument).toMatchObject({ parentType: "client-documents", parentId: document, sortOrder: 0 })
      expect(ids(yield* get(`/api/v1/milestones?parentId=${document}`, { key: org.apiKey }))).toEqual([onDocument.id])

      const refused: Array<Record<string, unknown>> = [
        { parentType: "client-documents", parentId: template },
        { parentType: "client-documents", parentId: theirDocument },
        { parentType: "projects", parentId: theirProject.id },
        { parentType: "projects", parentId: NIL },
        { parentType: "client-documents", parentId: NIL },
        // The right id under the other type.
        { parentType: "projects", parentId: document },
        { parentType: "client-documents", parentId: project.id }
      ]
      for (const parent of refused) expectUnknownParent(yield* post("/api/v1/milestones", { ...parent, title: "Nope" }, { key: org.apiKey }))
      expect((yield* get("/api/v1/milestones", { key: org.apiKey })).body.pagination.total).toBe(1)
      expect((yield* get("/api/v1/milestones", { key: theirs.apiKey })).body.pagination.total).toBe(0)
    }))

  it.effect("a project with milestones cannot be deleted (409 record_has_dependents); without them it can", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const milestone = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: "Deposit" })
      expectError(yield* del(`/api/v1/projects/${project.id}`, { key: org.apiKey }), 409, "conflict", "record_has_dependents")
      expect((yield* get(`/api/v1/projects/${project.id}`, { key: org.apiKey })).status).toBe(200)
      expect((yield* get(`/api/v1/milestones/${milestone.id}`, { key: org.apiKey })).body).toEqual(milestone)
      expect((yield* del(`/api/v1/milestones/${milestone.id}`, { key: org.apiKey })).status).toBe(204)
      expect((yield* del(`/api/v1/projects/${project.id}`, { key: org.apiKey })).status).toBe(204)
    }))

  it.effect("400 on every bound and on unknown, read-only or parent fields; nothing is created or changed", () =>
    Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const project = yield* newClientProject(org.apiKey)
      const base = { parentType: "projects", parentId: project.id, title: "T" }
      const badCreates: Array<[Record<string, unknown>, string]> = [
        [{ parentId: project.id, title: "T" }, "parentType"],
        [{ ...base, parentType: "tasks" }, "parentType"],
        [{ parentType: "projects", title: "T" }, "parentId"],
        [{ ...base, parentId: "not-a-uuid" }, "parentId"],
        [{ parentType: "projects", parentId: project.id }, "title"],
        [{ ...base, title: "" }, "title"],
        [{ ...base, title: "x".repeat(201) }, "title"],
        [{ ...base, title: "A\u0000B" }, "title"],
        [{ ...base, description: "x".repeat(5001) }, "description"],
        [{ ...base, dueDate: "2027-02-30" }, "dueDate"],
        [{ ...base, dueDate: "tomorrow" }, "dueDate"],
        [{ ...base, amount: -1 }, "amount"],
        [{ ...base, amount: 1.234 }, "amount"],
        [{ ...base, amount: "10" }, "amount"],
        [{ ...base, status: "done" }, "status"],
        [{ ...base, status: null }, "status"],
        [{ ...base, sortOrder: -1 }, "sortOrder"],
        [{ ...base, sortOrder: 1.5 }, "sortOrder"],
        [{ ...base, sortOrder: 1_000_000_001 }, "sortOrder"],
        [{ ...base, completedAt: "2027-01-01T00:00:00.000Z" }, "completedAt"],
        [{ ...base, id: NIL }, "id"],
        [{ ...base, createdAt: "2027-01-01T00:00:00.000Z" }, "createdAt"],
        [{ ...base, colour: "red" }, "colour"]
      ]
      for (const [body, field] of badCreates) expectInvalid(yield* post("/api/v1/milestones", body, { key: org.apiKey }), field)
      expect((yield* get("/api/v1/milestones", { key: org.apiKey })).body.pagination.total).toBe(0)

      const milestone = yield* newMilestone(org.apiKey, base)
      const badUpdates: Array<[Record<string, unknown>, string]> = [
        [{ title: "" }, "title"],
        [{ title: null }, "title"],
        [{ amount: -0.01 }, "amount"],
        [{ status: "completed", sortOrder: -2 }, "sortOrder"],
        [{ status: "archived" }, "status"],
        [{ parentType: "client-documents" }, "parentType"],
        [{ parentId: NIL }, "parentId"],
        [{ completedAt: null }, "completedAt"],
        [{ updatedAt: "2027-01-01T00:00:00.000Z" }, "updatedAt"]
      ]
      for (const [body, field] of badUpdates) expectInvalid(yield* patch(`/api/v1/milestones/${milestone.id}`, body, { key: org.apiKey }), field)
      expect((yield* get(`/api/v1/milestones/${milestone.id}`, { key: org.apiKey })).body).toEqual(milestone)
      // A malformed id is 404.
      expectError(yield* get("/api/v1/milestones/not-a-uuid", { key: org.apiKey }), 404, "not_found")
    }))

  it.effect("401 without or with a bad key; 403 without the milestones scopes, naming them", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const owner = yield* server.organization()
      const project = yield* newClientProject(owner.apiKey)
      const milestone = yield* newMilestone(owner.apiKey, { parentType: "projects", parentId: project.id, title: "Scoped" })
      const body = { parentType: "projects", parentId: project.id, title: "A" }

      for (
        const res of [
          yield* get("/api/v1/milestones"),
          yield* post("/api/v1/milestones", body),
          yield* get(`/api/v1/milestones/${milestone.id}`),
          yield* patch(`/api/v1/milestones/${milestone.id}`, { title: "B" }),
          yield* del(`/api/v1/milestones/${milestone.id}`),
          yield* get("/api/v1/milestones", { key: "bok_nope" }),
          yield* patch(`/api/v1/milestones/${milestone.id}`, { title: "B" }, { bearer: owner.apiKey.slice(0, -1) + "x" })
        ]
      ) expectError(res, 401, "unauthorized")

      const reader = yield* server.organization(["milestones:read"])
      expect((yield* get("/api/v1/milestones", { key: reader.apiKey })).status).toBe(200)
      expectError(yield* get(`/api/v1/milestones/${NIL}`, { key: reader.apiKey }), 404, "not_found")
      for (
        const res of [
          yield* post("/api/v1/milestones", body, { key: reader.apiKey }),
          yield* patch(`/api/v1/milestones/${NIL}`, { title: "B" }, { key: reader.apiKey }),
          yield* del(`/api/v1/milestones/${NIL}`, { key: reader.apiKey })
        ]
      ) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("milestones:write")
      }
      const projectsOnly = yield* server.organization(["projects:read", "projects:write", "clients:write"])
      for (const res of [yield* get("/api/v1/milestones", { key: projectsOnly.apiKey }), yield* get(`/api/v1/milestones/${NIL}`, { key: projectsOnly.apiKey })]) {
        expectError(res, 403, "forbidden")
        expect(res.body.error.message).toContain("milestones:read")
      }
      expect((yield* get(`/api/v1/milestones/${milestone.id}`, { key: owner.apiKey })).body).toEqual(milestone)
    }))

  it.effect("another organization's milestone is 404 on every operation and never listed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const mine = yield* server.organization()
      const theirs = yield* server.organization()
      const theirProject = yield* newClientProject(theirs.apiKey)
      const theirMilestone = yield* newMilestone(theirs.apiKey, { parentType: "projects", parentId: theirProject.id, title: "Theirs" })

      expectError(yield* get(`/api/v1/milestones/${theirMilestone.id}`, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* patch(`/api/v1/milestones/${theirMilestone.id}`, { title: "Mine" }, { key: mine.apiKey }), 404, "not_found")
      expectError(yield* del(`/api/v1/milestones/${theirMilestone.id}`, { key: mine.apiKey }), 404, "not_found")
      expect((yield* get("/api/v1/milestones", { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/milestones?parentId=${theirProject.id}`, { key: mine.apiKey })).body.data).toEqual([])
      expect((yield* get(`/api/v1/milestones/${theirMilestone.id}`, { key: theirs.apiKey })).body).toEqual(theirMilestone)
    }))

  it.effect("milestone_created, _updated (previousAttributes) and _deleted are delivered, signed", () =>
    Effect.scoped(Effect.gen(function*() {
      const org = yield* (yield* TestServer).organization()
      const hook = yield* receiver
      yield* subscribe(org.apiKey, hook.url, ["milestone_created", "milestone_updated", "milestone_deleted"])
      const project = yield* newClientProject(org.apiKey)
      const created = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: "Deposit", amount: 500 })
      const updated = (yield* patch(`/api/v1/milestones/${created.id}`, { status: "completed" }, { key: org.apiKey })).body
      expect((yield* del(`/api/v1/milestones/${created.id}`, { key: org.apiKey })).status).toBe(204)

      yield* hook.waitFor(3)
      yield* realSleep(1000)
      const events = hook.received().map(verified)
      expect(events.map((event) => event.type).sort()).toEqual(["milestone_created", "milestone_deleted", "milestone_updated"])
      const byType = Object.fromEntries(events.map((event) => [event.type, event]))
      expect(byType.milestone_created.data).toEqual({ object: created })
      expect(byType.milestone_updated.data).toEqual({ object: updated, previousAttributes: { status: "pending", completedAt: null, updatedAt: created.updatedAt } })
      expect(byType.milestone_deleted.data).toEqual({ object: updated })
      for (const event of events) expect(event.organizationId).toBe(org.organizationId)
    })))

  effectProp(
    it,
    "any set of sortOrders lists in ascending order, ties by creation, and amounts round-trip",
    [fc.array(fc.record({ sortOrder: fc.integer({ min: 0, max: 1_000_000_000 }), cents: fc.integer({ min: 0, max: 900_000_000_000_000 }) }), { minLength: 1, maxLength: 6 })],
    ([specs]) =>
      Effect.gen(function*() {
        const org = yield* (yield* TestServer).organization()
        const project = yield* newClientProject(org.apiKey)
        const created: Array<Ordered> = []
        for (const [i, spec] of specs.entries()) {
          const amount = spec.cents / 100
          const milestone = yield* newMilestone(org.apiKey, { parentType: "projects", parentId: project.id, title: `m${i}`, sortOrder: spec.sortOrder, amount })
          expect([milestone.amount, milestone.sortOrder]).toEqual([amount, spec.sortOrder])
          created.push(milestone)
        }
        expect(ids(yield* get(`/api/v1/milestones?parentId=${project.id}&pageSize=100`, { key: org.apiKey }))).toEqual(parentOrder(created))
      }),
    { fastCheck: { numRuns: 15 }, timeout: 60_000 }
  )
})
