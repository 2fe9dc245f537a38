import {
  type Filters,
  fromMinorUnits,
  linkedRecordNotFound,
  Milestone,
  type MilestoneCreate,
  type MilestoneId,
  type MilestoneListParams,
  type MilestoneParentType,
  type MilestoneUpdate,
  milestoneCompletion,
  milestoneListOrder,
  nextMilestoneSortOrder,
  type PageRequest,
  type Principal,
  toMinorUnits
} from "@bizops/domain"
import { Context, Effect, Layer } from "effect"
import { FastSql } from "../Sql/Fast.js"
import { byFilters, definedOnly } from "../Sql/Lists.js"
import { makeResource } from "../Sql/Resource.js"
import type { RowOf } from "../Sql/Rows.js"

/** A milestone as stored: its amount in minor units (2 fraction digits, as a project's contractValue). */
type MilestoneRow = Omit<RowOf<typeof Milestone>, "amount"> & { readonly amountMinor: number | null }

const toMilestone = (row: MilestoneRow) =>
  new Milestone({ ...row, amount: row.amountMinor === null ? null : fromMinorUnits(row.amountMinor) }, { disableChecks: true })

const amountColumn = (value: number | null | undefined) =>
  value === undefined ? {} : { amountMinor: value === null ? null : toMinorUnits(value) }

/** One parent's milestones in their order; ties (a capped or repeated sortOrder) by creation. */
const PARENT_ORDER = "sort_order ASC, created_at ASC, id ASC"

/**
 * The parent's row, locked against other writers of its milestones: `FOR NO KEY UPDATE` makes two
 * creations on one parent take turns (so each default sortOrder follows the other's), and a delete of the
 * parent wait for the milestone, then fail on its foreign key. A template is no record of the API's.
 */
const PARENT_ROW: Record<MilestoneParentType, { readonly query: string; readonly what: string }> = {
  projects: { query: "SELECT id FROM projects WHERE organization_id = $1 AND id = $2 FOR NO KEY UPDATE", what: "project" },
  "client-documents": {
    query: "SELECT id FROM client_documents WHERE organization_id = $1 AND id = $2 AND NOT is_template FOR NO KEY UPDATE",
    what: "client document"
  }
}

const makeMilestonesRepo = Effect.gen(function*() {
  const fast = yield* FastSql
  const milestones = yield* makeResource({ table: "milestones", resource: "milestone", what: "milestone", toResource: toMilestone })

  /** The parent must be a record of the organization (400 linked_record_not_found on parentId otherwise). */
  const lockParent = (principal: Principal, parentType: MilestoneParentType, parentId: string) =>
    Effect.flatMap(fast.rows<{ readonly id: string }>(PARENT_ROW[parentType].query, [principal.organizationId, parentId]), (rows) =>
      rows.length === 0 ? Effect.fail(linkedRecordNotFound("parentId", PARENT_ROW[parentType].what)) : Effect.void)

  /** The largest sortOrder among the parent's milestones (null when it has none). */
  const parentMax = (principal: Principal, parentType: MilestoneParentType, parentId: string) =>
    Effect.map(
      fast.rows<{ readonly max: number | null }>(
        "SELECT max(sort_order) AS max FROM milestones WHERE organization_id = $1 AND parent_type = $2 AND parent_id = $3",
        [principal.organizationId, parentType, parentId]
      ),
      ([row]) => row?.max ?? null
    )

  /** With parentId: that parent's milestones by sortOrder; otherwise newest first. */
  const list = (filters: Filters<typeof MilestoneListParams>, page: PageRequest) =>
    milestones.list(byFilters(filters), page, milestoneListOrder(filters) === "sortOrder" ? PARENT_ORDER : undefined)

  const create = (input: MilestoneCreate) =>
    milestones.create((_, principal) =>
      Effect.gen(function*() {
        yield* lockParent(principal, input.parentType, input.parentId)
        const status = input.status ?? "pending"
        return {
          parentType: input.parentType,
          parentId: input.parentId,
          title: input.title,
          description: input.description ?? null,
          dueDate: input.dueDate ?? null,
          ...amountColumn(input.amount),
          status,
          completedAt: milestoneCompletion({ status: "pending", completedAt: null }, input.status, yield* milestones.now),
          sortOrder: input.sortOrder ?? nextMilestoneSortOrder(yield* parentMax(principal, input.parentType, input.parentId))
        }
      })
    )

  /** Only the fields the body named; a status that changes stamps or clears completedAt. */
  const update = (id: MilestoneId, input: MilestoneUpdate) =>
    milestones.update(id, (current) =>
      Effect.gen(function*() {
        const { amount, ...fields } = input
        const values = { ...definedOnly(fields), ...amountColumn(amount) }
        if (input.status === undefined) return values
        return { ...values, completedAt: milestoneCompletion(current, input.status, yield* milestones.now) }
      })
    )

  return { list, get: milestones.get, create, update, remove: milestones.remove } as const
})

/**
 * Milestones of projects and client documents, always scoped by the caller's organization. The parent
 * is checked on create and never changes; the foreign keys keep a parent with milestones from being
 * deleted (409 record_has_dependents).
 */
export class MilestonesRepo extends Context.Service<MilestonesRepo, Effect.Success<typeof makeMilestonesRepo>>()("@bizops/server/MilestonesRepo") {
  static readonly layer = Layer.effect(MilestonesRepo, makeMilestonesRepo)
}
