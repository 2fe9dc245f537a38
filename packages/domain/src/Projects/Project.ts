import { Result, Schema } from "effect"
import { ClientId } from "../Clients/Client.js"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { Refusal } from "../Common/Refusal.js"
import { BoundedString, BusinessId, DateOnly, DateTime, MoneyAmount, Uuid } from "../Common/Values.js"

export const ProjectId = Uuid.pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type

export const ProjectStatus = Schema.Literals(["active", "paused", "completed"])
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

/**
 * The dates a project ends up with (a change merged over the current ones) are in order: else 400
 * invalid_payload on endDate, as the bodies' own check answers.
 */
export const checkProjectDates = (p: { readonly startDate: string | null; readonly endDate: string | null }): Result.Result<void, Refusal> =>
  datesInOrder(p) ? Result.void : Result.fail(Refusal.invalid(["endDate"], datesMessage))

export const ProjectCreate = Schema.Struct({
  name: fields.name,
  clientId: ClientId,
  status: Schema.optionalKey(fields.status),
  pipelineStageId: Schema.optionalKey(fields.pipelineStageId),
  startDate: Schema.optionalKey(fields.startDate),
  endDate: Schema.optionalKey(fields.endDate),
  eventDate: Schema.optionalKey(fields.eventDate),
  contractValue: Schema.optionalKey(fields.contractValue)
}).annotate({ examples: [{ name: "Summer wedding", clientId: ClientId.make("6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b"), eventDate: "2027-06-19", contractValue: 4800 }] }).check(
  Schema.makeFilter((p) => datesInOrder(p) || { path: ["endDate"], issue: datesMessage })
).annotate({ identifier: "ProjectCreate" })
export type ProjectCreate = typeof ProjectCreate.Type

export const ProjectUpdate = Schema.Struct({
  name: Schema.optionalKey(fields.name),
  clientId: Schema.optionalKey(ClientId),
  status: Schema.optionalKey(fields.status),
  pipelineStageId: Schema.optionalKey(fields.pipelineStageId),
  startDate: Schema.optionalKey(fields.startDate),
  endDate: Schema.optionalKey(fields.endDate),
  eventDate: Schema.optionalKey(fields.eventDate),
  contractValue: Schema.optionalKey(fields.contractValue)
}).annotate({ examples: [{ status: "paused" }] }).check(
  Schema.makeFilter((p) => datesInOrder(p) || { path: ["endDate"], issue: datesMessage })
).annotate({ identifier: "ProjectUpdate" })
export type ProjectUpdate = typeof ProjectUpdate.Type

export const ProjectListParams = Schema.Struct({
  ...ListParams,
  clientId: Schema.optionalKey(ClientId),
  status: Schema.optionalKey(ProjectStatus)
})

export const ProjectList = ListOf(Project, "ProjectList")
