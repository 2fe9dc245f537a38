import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Project, ProjectCreate, ProjectId, ProjectList, ProjectListParams, ProjectUpdate } from "./Project.js"

const projects = crudEndpoints("projects", { id: ProjectId, resource: Project, create: ProjectCreate, update: ProjectUpdate, listQuery: ProjectListParams, list: ProjectList }, {
  what: "a project",
  list: "Lists projects, newest first; filters clientId and status.",
  create: "Creates a project for a client (clientId is required)."
})

export class ProjectsApi extends resourceGroup(
  "projects",
  { title: "Projects", description: "The work done for a client: its dates, its status and its contract value." },
  projects.list, projects.create, projects.get, projects.update, projects.delete
) {}
