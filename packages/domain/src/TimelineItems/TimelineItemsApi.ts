import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication, RequiredScope } from "../Common/Auth.js"
import { ConflictResponse, NotFoundResponse } from "../Common/Errors.js"
import { TimelineItem, TimelineItemCreate, TimelineItemId, TimelineItemList, TimelineItemListParams, TimelineItemUpdate } from "./TimelineItem.js"

const IdPath = Schema.Struct({ id: TimelineItemId })

export class TimelineItemsApi extends HttpApiGroup.make("timelineItems")
  .add(
    HttpApiEndpoint.get("list", "/timeline-items").annotate(RequiredScope, "timeline-items:read")
      .setUrlParams(TimelineItemListParams)
      .addSuccess(TimelineItemList)
      .annotate(
        OpenApi.Description,
        "Lists timeline items in the day's order (by event day date, then sortOrder); filters eventDayId (a day's schedule) and status. Times and conflicts are computed over the whole day whatever the page. Scope timeline-items:read."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/timeline-items").annotate(RequiredScope, "timeline-items:write")
      .setPayload(TimelineItemCreate)
      .addSuccess(TimelineItem, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Creates a block on an event day. Without sortOrder it is appended; with one it is inserted there and the others renumbered. Start and end times are computed by the cascade, never set. Scope timeline-items:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/timeline-items/:id").annotate(RequiredScope, "timeline-items:read")
      .setPath(IdPath)
      .addSuccess(TimelineItem)
      .addError(NotFoundResponse)
      .annotate(OpenApi.Description, "Retrieves a timeline item with its computed times and conflicts. Scope timeline-items:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/timeline-items/:id").annotate(RequiredScope, "timeline-items:write")
      .setPath(IdPath)
      .setPayload(TimelineItemUpdate)
      .addSuccess(TimelineItem)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(
        OpenApi.Description,
        "Updates a timeline item; sortOrder moves it and renumbers the day. A locked item refuses every change but {\"locked\": false} (409 record_immutable). Scope timeline-items:write."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/timeline-items/:id").annotate(RequiredScope, "timeline-items:write")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundResponse)
      .addError(ConflictResponse)
      .annotate(OpenApi.Description, "Deletes a timeline item (a locked one is 409 record_immutable); the day is renumbered. Scope timeline-items:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Timeline items")
{}
