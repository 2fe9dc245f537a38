import {
  checkProjectDates,
  type Filters,
  fromMinorUnits,
  linkedRecordNotFound,
  orRefuse,
  type PageRequest,
  type Principal,
  Project,
  type ProjectCreate,
  ProjectId,
  type ProjectListParams,
  type ProjectUpdate,
  toMinorUnits
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { byFilters, definedOnly } from "../Sql/Lists.js"
import type { RowOf } from "../Sql/Rows.js"
import { makeResource } from "../Sql/Resource.js"

type ProjectRow = Omit<RowOf<typeof Project>, "contractValue"> & { readonly contractValueMinor: number | null }

const toProject = (row: ProjectRow) =>
  new Project({ ...row, contractValue: row.contractValueMinor === null ? null : fromMinorUnits(row.contractValueMinor) }, { disableChecks: true })

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

  const list = (filters: Filters<typeof ProjectListParams>, page: PageRequest) => projects.list(byFilters(filters), page)

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
