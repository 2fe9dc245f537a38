import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ApiErrors, ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { TimelineItem, TimelineItemCreate, TimelineItemId, TimelineItemList, TimelineItemListParams, TimelineItemUpdate } from "./TimelineItem.js"

const IdPath = Schema.Struct({ id: TimelineItemId })

export class TimelineItemsApi extends HttpApiGroup.make("timelineItems")
  .add(
    HttpApiEndpoint.get("list", "/timeline-items", { query: TimelineItemListParams, success: TimelineItemList, error: ApiErrors })
      .annotate(RequiredScope, "timeline-items:read")
      .annotate(
        OpenApi.Description,
        "Lists timeline items in the day's order (by event day date, then sortOrder); filters eventDayId (a day's schedule) and status. Times and conflicts are computed over the whole day whatever the page. Scope timeline-items:read."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/timeline-items", { payload: TimelineItemCreate, success: TimelineItem.pipe(HttpApiSchema.status(201)), error: ApiErrors })
      .annotate(RequiredScope, "timeline-items:write")
      .annotate(
        OpenApi.Description,
        "Creates a block on an event day. Without sortOrder it is appended; with one it is inserted there and the others renumbered. Start and end times are computed by the cascade, never set. Scope timeline-items:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/timeline-items/:id", { params: IdPath, success: TimelineItem, error: [...ApiErrors, NotFoundResponse] })
      .annotate(RequiredScope, "timeline-items:read")
      .annotate(OpenApi.Description, "Retrieves a timeline item with its computed times and conflicts. Scope timeline-items:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/timeline-items/:id", { params: IdPath, payload: TimelineItemUpdate, success: TimelineItem, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "timeline-items:write")
      .annotate(
        OpenApi.Description,
        "Updates a timeline item; sortOrder moves it and renumbers the day. A locked item refuses every change but {\"locked\": false} (409 record_immutable). Scope timeline-items:write."
      )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/timeline-items/:id", { params: IdPath, success: HttpApiSchema.NoContent, error: [...ApiErrors, NotFoundResponse, ConflictResponse] })
      .annotate(RequiredScope, "timeline-items:write")
      .annotate(OpenApi.Description, "Deletes a timeline item (a locked one is 409 record_immutable); the day is renumbered. Scope timeline-items:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Timeline items")
{}
