import {
  BusinessId,
  ClientId,
  fromMinorUnits,
  InvalidRequest,
  linkedRecordNotFound,
  notFound,
  type PageRequest,
  type Principal,
  Project,
  type ProjectCreate,
  ProjectId,
  type ProjectStatus,
  type ProjectUpdate,
  toMinorUnits
} from "@bizops/domain"
import { Context, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { refuseViolations } from "../Sql/Constraints.js"
import { FastSql } from "../Sql/Fast.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { conditions, definedOnly, findRow as findOne, getOf, listOf } from "../Sql/Lists.js"

interface ProjectRow {
  readonly id: string
  readonly clientId: string | null
  readonly businessId: string
  readonly name: string
  readonly status: ProjectStatus
  readonly pipelineStageId: string | null
  readonly startDate: string | null
  readonly endDate: string | null
  readonly eventDate: string | null
  readonly contractValueMinor: number | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toProject = (row: ProjectRow) =>
  new Project({
    id: ProjectId.make(row.id, { disableChecks: true }),
    name: row.name,
    clientId: row.clientId === null ? null : ClientId.make(row.clientId, { disableChecks: true }),
    businessId: BusinessId.make(row.businessId, { disableChecks: true }),
    status: row.status,
    pipelineStageId: row.pipelineStageId,
    startDate: row.startDate,
    endDate: row.endDate,
    eventDate: row.eventDate,
    contractValue: row.contractValueMinor === null ? null : fromMinorUnits(row.contractValueMinor),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }, { disableChecks: true })

const contractValueColumn = (value: number | null | undefined) =>
  value === undefined ? {} : { contractValueMinor: value === null ? null : toMinorUnits(value) }

const invalidDates = new InvalidRequest({
  message: "endDate: must be on or after startDate",
  details: { code: "invalid_payload", issues: [{ path: ["endDate"], message: "must be on or after startDate" }] }
})

const makeProjectsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fast = yield* FastSql
  const outbox = yield* Outbox

  const clientBusiness = (principal: Principal, clientId: string) =>
    Effect.flatMap(
      sql<{ readonly businessId: string }>`SELECT business_id FROM clients
        WHERE organization_id = ${principal.organizationId} AND id = ${clientId} FOR SHARE`,
      (rows) => rows[0] === undefined ? Effect.fail(linkedRecordNotFound("clientId", "client")) : Effect.succeed(rows[0].businessId)
    )

  const list = (
    principal: Principal,
    filters: {
      readonly clientId?: ClientId | undefined
      readonly status?: ProjectStatus | undefined
      readonly updatedSince?: Date | undefined
    },
    page: PageRequest
  ) =>
    listOf(fast, "projects", conditions(
      ["organization_id = ?", principal.organizationId],
      ["client_id = ?", filters.clientId],
      ["status = ?", filters.status],
      ["updated_at >= ?", filters.updatedSince]
    ), page, toProject)

  const findRow = (principal: Principal, id: string, forUpdate = false) =>
    Effect.map(findOne<ProjectRow>(fast, "projects", principal.organizationId, id, forUpdate), Option.fromNullishOr)

  const get = (principal: Principal, id: ProjectId) =>
    getOf(fast, "projects", principal.organizationId, id, "project", toProject)

  const create = (principal: Principal, input: ProjectCreate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const businessId = yield* clientBusiness(principal, input.clientId)
        const rows = yield* sql<ProjectRow>`INSERT INTO projects ${
          sql.insert({
            id: randomUUID(),
            organizationId: principal.organizationId,
            clientId: input.clientId,
            businessId,
            name: input.name,
            status: input.status ?? "active",
            pipelineStageId: input.pipelineStageId ?? null,
            startDate: input.startDate ?? null,
            endDate: input.endDate ?? null,
            eventDate: input.eventDate ?? null,
            ...contractValueColumn(input.contractValue)
          })
        } RETURNING *`
        const created = toProject(rows[0])
      yield* outbox.created(principal, "project", created)
      return created
      })
    ).pipe(refuseViolations)

  const update = (principal: Principal, id: ProjectId, input: ProjectUpdate) =>
    sql.withTransaction(
      Effect.gen(function*() {
        const current = yield* findRow(principal, id, true)
        if (Option.isNone(current)) return yield* Effect.fail(notFound("project"))
        const { contractValue, ...fields } = input
        const values = { ...definedOnly(fields), ...contractValueColumn(contractValue) }
        if (Object.keys(values).length === 0) return toProject(current.value)
        const startDate = input.startDate === undefined ? current.value.startDate : input.startDate
        const endDate = input.endDate === undefined ? current.value.endDate : input.endDate
        if (startDate !== null && endDate !== null && startDate > endDate) {
          return yield* Effect.fail(invalidDates)
        }
        const businessId = input.clientId === undefined ? {} : { businessId: yield* clientBusiness(principal, input.clientId) }
        const rows = yield* sql<ProjectRow>`UPDATE projects SET ${sql.update({ ...values, ...businessId, updatedAt: new Date() })}
          WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
        const updated = toProject(rows[0])
        yield* outbox.updated(principal, "project", toProject(current.value), updated)
        return updated
      })
    ).pipe(refuseViolations)

  const remove = (principal: Principal, id: ProjectId) =>
    sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql<ProjectRow>`DELETE FROM projects
        WHERE organization_id = ${principal.organizationId} AND id = ${id} RETURNING *`
      if (rows.length === 0) return yield* Effect.fail(notFound("project"))
      yield* outbox.deleted(principal, "project", toProject(rows[0]))
    })).pipe(refuseViolations)

  return { list, get, create, update, remove } as const
})

/** Projects, always scoped by the caller's organization. A project's business is its client's. */
export class ProjectsRepo extends Context.Service<ProjectsRepo, Effect.Success<typeof makeProjectsRepo>>()("@bizops/server/ProjectsRepo") {
  static readonly layer = Layer.effect(ProjectsRepo, makeProjectsRepo)
}
