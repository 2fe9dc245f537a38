import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, NotFoundResponse } from "../Common/Errors.js"
import { Project, ProjectCreate, ProjectId, ProjectList, ProjectListParams, ProjectUpdate } from "./Project.js"

const IdPath = Schema.Struct({ id: ProjectId })

export class ProjectsApi extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("list", "/projects", { query: ProjectListParams, success: ProjectList, error: ApiErrors })
      .annotate(RequiredScope, "projects:read")
      .annotate(OpenApi.Description, "Lists projects, newest first; filters clientId and status. Scope projects:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/projects", { payload: ProjectCreate, success: Project.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "projects:write")
      .annotate(OpenApi.Description, "Creates a project for a client (clientId is required). Scope projects:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/projects/:id", { params: IdPath, success: Project, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "projects:read")
      .annotate(OpenApi.Description, "Retrieves a project. Scope projects:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/projects/:id", { params: IdPath, payload: ProjectUpdate, success: Project, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "projects:write")
      .annotate(OpenApi.Description, "Updates a project. Scope projects:write.")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/projects/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "projects:write")
      .annotate(OpenApi.Description, "Deletes a project. Scope projects:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Projects")
{}
