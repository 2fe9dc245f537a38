import { Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, BusinessId, DateOnly, DateTime, MoneyAmount, strict, Uuid } from "../Common/Values.js"

export const ProjectId = Uuid.pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type

export const ProjectStatus = Schema.Literal("active", "paused", "completed")
export type ProjectStatus = typeof ProjectStatus.Type

export class Project extends Schema.Class<Project>("Project")({
  id: ProjectId,
  name: Schema.String,
  clientId: Schema.NullOr(ClientId),
  businessId: BusinessId,
  status: ProjectStatus,
  pipelineStageId: Schema.NullOr(Uuid),
  startDate: Schema.NullOr(DateOnly),
  endDate: Schema.NullOr(DateOnly),
  eventDate: Schema.NullOr(DateOnly),
  contractValue: Schema.NullOr(MoneyAmount),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

const fields = {
  name: BoundedString(1, 200),
  status: ProjectStatus,
  pipelineStageId: Schema.NullOr(Uuid),
  startDate: Schema.NullOr(DateOnly),
  endDate: Schema.NullOr(DateOnly),
  eventDate: Schema.NullOr(DateOnly),
  contractValue: Schema.NullOr(MoneyAmount)
}

/** A project ends on or after the day it starts. */
export const datesInOrder = (p: { readonly startDate?: string | null | undefined; readonly endDate?: string | null | undefined }): boolean =>
  p.startDate == null || p.endDate == null || p.startDate <= p.endDate

const datesMessage = "must be on or after startDate"

export const ProjectCreate = Schema.Struct({
  name: fields.name,
  clientId: ClientId,
  status: Schema.optional(fields.status),
  pipelineStageId: Schema.optional(fields.pipelineStageId),
  startDate: Schema.optional(fields.startDate),
  endDate: Schema.optional(fields.endDate),
  eventDate: Schema.optional(fields.eventDate),
  contractValue: Schema.optional(fields.contractValue)
}).pipe(
  Schema.filter((p) => datesInOrder(p) || { path: ["endDate"], message: datesMessage }),
  Schema.annotations({ ...strict, identifier: "ProjectCreate" })
)
export type ProjectCreate = typeof ProjectCreate.Type

export const ProjectUpdate = Schema.Struct({
  name: Schema.optional(fields.name),
  clientId: Schema.optional(ClientId),
  status: Schema.optional(fields.status),
  pipelineStageId: Schema.optional(fields.pipelineStageId),
  startDate: Schema.optional(fields.startDate),
  endDate: Schema.optional(fields.endDate),
  eventDate: Schema.optional(fields.eventDate),
  contractValue: Schema.optional(fields.contractValue)
}).pipe(
  Schema.filter((p) => datesInOrder(p) || { path: ["endDate"], message: datesMessage }),
  Schema.annotations({ ...strict, identifier: "ProjectUpdate" })
)
export type ProjectUpdate = typeof ProjectUpdate.Type

export const ProjectListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optional(ClientId),
  status: Schema.optional(ProjectStatus)
})

export const ProjectList = ListOf(Project, "ProjectList")
