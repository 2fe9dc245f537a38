import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Milestone, MilestoneCreate, MilestoneId, MilestoneList, MilestoneListParams, MilestoneUpdate } from "./Milestone.js"

const milestones = crudEndpoints("milestones", { id: MilestoneId, resource: Milestone, create: MilestoneCreate, update: MilestoneUpdate, listQuery: MilestoneListParams, list: MilestoneList }, {
  what: "a milestone",
  list: "Lists milestones; filters parentType, parentId and status. With parentId, one parent's milestones in their order (sortOrder ascending); otherwise newest first.",
  create: "Creates a milestone of a project or a client document (parentType, parentId and title are required; the parent must be a record of the organization). sortOrder defaults to after the parent's last milestone; status completed stamps completedAt.",
  update: "Updates a milestone. It cannot move to another parent. Setting status to completed stamps completedAt; back to pending clears it."
})

export class MilestonesApi extends resourceGroup(
  "milestones",
  { title: "Milestones", description: "The steps of a project or a client document: a title, an optional due date and amount, a status, and their order among the parent's milestones." },
  milestones.list, milestones.create, milestones.get, milestones.update, milestones.delete
) {}
