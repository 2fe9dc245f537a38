import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { EventDay, EventDayCreate, EventDayId, EventDayList, EventDayListParams, EventDayUpdate } from "./EventDay.js"

const IdPath = Schema.Struct({ id: EventDayId })

export class EventDaysApi extends HttpApiGroup.make("eventDays")
  .add(
    HttpApiEndpoint.get("list", "/event-days", { query: EventDayListParams, success: EventDayList, error: ApiErrors })
      .annotate(RequiredScope, "event-days:read")
      .annotate(OpenApi.Description, "Lists event days, newest first; filter projectId. Scope event-days:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/event-days", { payload: EventDayCreate, success: EventDay.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "event-days:write")
      .annotate(OpenApi.Description, "Creates an event day: its date, time zone (default UTC), start time (default 09:00), key moments and venue. Scope event-days:write.")
  )
  .add(
    HttpApiEndpoint.get("get", "/event-days/:id", { params: IdPath, success: EventDay, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "event-days:read")
      .annotate(OpenApi.Description, "Retrieves an event day. Scope event-days:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/event-days/:id", { params: IdPath, payload: EventDayUpdate, success: EventDay, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "event-days:write")
      .annotate(OpenApi.Description, "Updates an event day; keyMoments and venue are replaced whole. The day's items reflow on the next read. Scope event-days:write.")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/event-days/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "event-days:write")
      .annotate(OpenApi.Description, "Deletes an event day without items (409 record_has_dependents while it has some). Scope event-days:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Event days")
{}
