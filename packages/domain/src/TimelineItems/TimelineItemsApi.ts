import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { TimelineItem, TimelineItemCreate, TimelineItemId, TimelineItemList, TimelineItemListParams, TimelineItemUpdate } from "./TimelineItem.js"

const items = crudEndpoints(
  "timeline-items",
  { id: TimelineItemId, resource: TimelineItem, create: TimelineItemCreate, update: TimelineItemUpdate, listQuery: TimelineItemListParams, list: TimelineItemList },
  {
    what: "a timeline item",
    list: "Lists timeline items in the day's order (by event day date, then sortOrder); filters eventDayId (a day's schedule) and status. Times and conflicts are computed over the whole day whatever the page.",
    create:
      "Creates a block on an event day. Without sortOrder it is appended; with one it is inserted there and the others renumbered. Start and end times are computed by the cascade, never set.",
    get: "Retrieves a timeline item with its computed times and conflicts.",
    update:
      "Updates a timeline item; sortOrder moves it and renumbers the day. A locked item refuses every change but {\"locked\": false} (409 record_immutable).",
    delete: "Deletes a timeline item (a locked one is 409 record_immutable); the day is renumbered."
  }
)

export class TimelineItemsApi extends resourceGroup(
  "timelineItems",
  { title: "Timeline items", description: "The schedule of an event day: blocks whose times are computed by the cascade." },
  items.list, items.create, items.get, items.update, items.delete
) {}
