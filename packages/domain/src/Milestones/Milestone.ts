/**
 * The Milestone resource (issue 16; contract "Contracts, client documents, milestones"): a step of a
 * project or of a client document (its polymorphic parent), with an optional due date and amount.
 * A parent's milestones are ordered by sortOrder; completing one stamps completedAt.
 */
import { Schema } from "effect"
import { ListOf, ListParams } from "../Common/Pagination.js"
import { BoundedString, DateOnly, DateTime, MaxString, MoneyAmount, Uuid } from "../Common/Values.js"

export const MilestoneId = Uuid.pipe(Schema.brand("MilestoneId"))
export type MilestoneId = typeof MilestoneId.Type

/** The collection the parent lives in: `/projects` or `/client-documents`. */
export const MilestoneParentTypes = ["projects", "client-documents"] as const
export const MilestoneParentType = Schema.Literals(MilestoneParentTypes)
export type MilestoneParentType = typeof MilestoneParentType.Type

export const MilestoneStatuses = ["pending", "completed"] as const
export const MilestoneStatus = Schema.Literals(MilestoneStatuses)
export type MilestoneStatus = typeof MilestoneStatus.Type

/**
 * The largest sortOrder a body may give. A new milestone's default (`nextMilestoneSortOrder`) stays within
 * it too, so every stored value fits PostgreSQL's integer and can be sent back unchanged.
 */
export const MAX_MILESTONE_SORT_ORDER = 1_000_000_000

export const MilestoneSortOrder = Schema.Int.check(
  Schema.isBetween({ minimum: 0, maximum: MAX_MILESTONE_SORT_ORDER }, { message: `must be a whole number between 0 and ${MAX_MILESTONE_SORT_ORDER}` })
)

export class Milestone extends Schema.Class<Milestone>("Milestone")({
  id: MilestoneId,
  parentType: MilestoneParentType,
  parentId: Uuid.annotate({ description: "The id of the project or the client document" }),
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  dueDate: Schema.NullOr(DateOnly),
  amount: Schema.NullOr(MoneyAmount),
  status: MilestoneStatus,
  completedAt: Schema.NullOr(DateTime).annotate({ description: "Set when status becomes completed, cleared when it goes back to pending" }),
  sortOrder: Schema.Int.annotate({ description: "The position among the parent's milestones, ascending" }),
  createdAt: DateTime,
  updatedAt: DateTime
}) {}

/** The fields a body may write, with their bounds. */
const fields = {
  title: BoundedString(1, 200),
  description: Schema.NullOr(MaxString(5000)),
  dueDate: Schema.NullOr(DateOnly),
  amount: Schema.NullOr(MoneyAmount),
  status: MilestoneStatus,
  sortOrder: MilestoneSortOrder
}

/**
 * Create: the parent and a title are required; the parent must be a record of the organization (the
 * server answers 400 linked_record_not_found). status defaults to pending, sortOrder to after the parent's
 * last milestone; completedAt is never written, it follows status.
 */
export const MilestoneCreate = Schema.Struct({
  parentType: MilestoneParentType,
  parentId: Uuid,
  title: fields.title,
  description: Schema.optionalKey(fields.description),
  dueDate: Schema.optionalKey(fields.dueDate),
  amount: Schema.optionalKey(fields.amount),
  status: Schema.optionalKey(fields.status),
  sortOrder: Schema.optionalKey(fields.sortOrder)
}).annotate({
  identifier: "MilestoneCreate",
  examples: [{ parentType: "projects", parentId: "6f1c2b7e-3d4a-4e5f-8a9b-0c1d2e3f4a5b", title: "Deposit received", dueDate: "2027-03-01", amount: 1200 }]
})
export type MilestoneCreate = typeof MilestoneCreate.Type

/**
 * Update: the writable fields, each optional. A milestone does not move to another parent (parentType and
 * parentId are refused as unknown fields), and completedAt follows status.
 */
export const MilestoneUpdate = Schema.Struct({
  title: Schema.optionalKey(fields.title),
  description: Schema.optionalKey(fields.description),
  dueDate: Schema.optionalKey(fields.dueDate),
  amount: Schema.optionalKey(fields.amount),
  status: Schema.optionalKey(fields.status),
  sortOrder: Schema.optionalKey(fields.sortOrder)
}).annotate({ identifier: "MilestoneUpdate", examples: [{ status: "completed" }, { sortOrder: 2, dueDate: null }] })
export type MilestoneUpdate = typeof MilestoneUpdate.Type

export const MilestoneListParams = Schema.Struct({
  ...ListParams,
  parentType: Schema.optionalKey(MilestoneParentType),
  parentId: Schema.optionalKey(Uuid),
  status: Schema.optionalKey(MilestoneStatus)
})

export const MilestoneList = ListOf(Milestone, "MilestoneList")

/**
 * A milestone's completedAt after its status is set to `next` (undefined: not named) at `now`: completing
 * stamps now, reopening clears it, and a status that does not change keeps completedAt as it was. A new
 * milestone is `milestoneCompletion({ status: "pending", completedAt: null }, body.status, now)`.
 */
export const milestoneCompletion = (
  before: { readonly status: MilestoneStatus; readonly completedAt: Date | null },
  next: MilestoneStatus | undefined,
  now: Date
): Date | null =>
  next === undefined || next === before.status ? before.completedAt : next === "completed" ? now : null

/**
 * The order of a list of milestones: by sortOrder (then createdAt and id) when it is one parent's
 * milestones (parentId given; ids are unique across collections, so parentType is not needed), else
 * newest first like every other list.
 */
export const milestoneListOrder = (filters: { readonly parentId?: string | undefined }): "sortOrder" | "newest" =>
  filters.parentId === undefined ? "newest" : "sortOrder"

/**
 * The sortOrder of a new milestone that names none: after the parent's last (the largest sortOrder it
 * has, null when it has none), 0 for the first; never beyond MAX_MILESTONE_SORT_ORDER (ties then fall
 * back to createdAt).
 */
export const nextMilestoneSortOrder = (parentMax: number | null): number =>
  parentMax === null ? 0 : Math.min(Math.max(parentMax + 1, 0), MAX_MILESTONE_SORT_ORDER)
