import {
  BusinessId,
  ClientId,
  checkProjectDates,
  fromMinorUnits,
  linkedRecordNotFound,
  orRefuse,
  type PageRequest,
  type Principal,
  Project,
  type ProjectCreate,
  ProjectId,
  type ProjectStatus,
  type ProjectUpdate,
  toMinorUnits
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { definedOnly } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"

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

const makeProjectsRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const projects = yield* makeResource({ table: "projects", resource: "project", what: "project", toResource: toProject })

  const clientBusiness = (principal: Principal, clientId: string) =>
    Effect.flatMap(
      sql<{ readonly businessId: string }>`SELECT business_id FROM clients
        WHERE organization_id = ${principal.organizationId} AND id = ${clientId} FOR SHARE`,
      (rows) => rows[0] === undefined ? Effect.fail(linkedRecordNotFound("clientId", "client")) : Effect.succeed(rows[0].businessId)
    )

  const list = (
    filters: {
      readonly clientId?: ClientId | undefined
      readonly status?: ProjectStatus | undefined
      readonly updatedSince?: Date | undefined
    },
    page: PageRequest
  ) => projects.list([["client_id = ?", filters.clientId], ["status = ?", filters.status], ["updated_at >= ?", filters.updatedSince]], page)

  const create = (input: ProjectCreate) =>
    projects.create((_, principal) =>
      Effect.map(clientBusiness(principal, input.clientId), (businessId) => ({
        clientId: input.clientId,
        businessId,
        name: input.name,
        status: input.status ?? "active",
        pipelineStageId: input.pipelineStageId ?? null,
        startDate: input.startDate ?? null,
        endDate: input.endDate ?? null,
        eventDate: input.eventDate ?? null,
        ...contractValueColumn(input.contractValue)
      }))
    )

  const update = (id: ProjectId, input: ProjectUpdate) =>
    projects.update(id, (current, principal) =>
      Effect.gen(function*() {
        const { contractValue, ...fields } = input
        const values = { ...definedOnly(fields), ...contractValueColumn(contractValue) }
        if (Object.keys(values).length === 0) return values
        // The dates as they will be (the body's over the record's) must be in order: the domain's rule.
        const dates = {
          startDate: input.startDate === undefined ? current.startDate : input.startDate,
          endDate: input.endDate === undefined ? current.endDate : input.endDate
        }
        yield* orRefuse(checkProjectDates(dates))
        const businessId = input.clientId === undefined ? {} : { businessId: yield* clientBusiness(principal, input.clientId) }
        return { ...values, ...businessId }
      })
    )

  return { list, get: projects.get, create, update, remove: projects.remove } as const
})

/** Projects, always scoped by the caller's organization. A project's business is its client's. */
export class ProjectsRepo extends Context.Service<ProjectsRepo, Effect.Success<typeof makeProjectsRepo>>()("@bizops/server/ProjectsRepo") {
  static readonly layer = Layer.effect(ProjectsRepo, makeProjectsRepo)
}
