import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { NotFoundResponse } from "../Common/Errors.js"
import { Project, ProjectCreate, ProjectId, ProjectList, ProjectListParams, ProjectUpdate } from "./Project.js"

const IdPath = Schema.Struct({ id: ProjectId })

export class ProjectsApi extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("list", "/projects").annotate(RequiredScope, "projects:read")
      .setUrlParams(ProjectListParams)
      .addSuccess(ProjectList)
      .annotate(OpenApi.Description, "Lists projects, newest first; filters clientId and status. Scope projects:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects").annotate(RequiredScope, "projects:write")
      .setPayload(ProjectCreate)
      .addSuccess(Project, { status: 201 })
      .annotate(OpenApi.Description, "Creates a project for a client (clientId is required). Scope projects:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/projects/:id").annotate(RequiredScope, "projects:read")
      .setPath(IdPath)
      .addSuccess(Project)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves a project. Scope projects:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/projects/:id").annotate(RequiredScope, "projects:write")
      .setPath(IdPath)
      .setPayload(ProjectUpdate)
      .addSuccess(Project)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Updates a project. Scope projects:write.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/projects/:id").annotate(RequiredScope, "projects:write")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Deletes a project. Scope projects:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Projects")
{}
