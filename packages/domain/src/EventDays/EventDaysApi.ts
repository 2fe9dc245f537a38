import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { EventDay, EventDayCreate, EventDayId, EventDayList, EventDayListParams, EventDayUpdate } from "./EventDay.js"

const days = crudEndpoints("event-days", { id: EventDayId, resource: EventDay, create: EventDayCreate, update: EventDayUpdate, listQuery: EventDayListParams, list: EventDayList }, {
  what: "an event day",
  list: "Lists event days, newest first; filter projectId.",
  create: "Creates an event day: its date, time zone (default UTC), start time (default 09:00), key moments and venue.",
  update: "Updates an event day; keyMoments and venue are replaced whole. The day's items reflow on the next read.",
  delete: "Deletes an event day without items (409 record_has_dependents while it has some)."
})

export class EventDaysApi extends resourceGroup(
  "eventDays",
  { title: "Event days", description: "The days of an event: date, time zone, start time, key moments and venue." },
  days.list, days.create, days.get, days.update, days.delete
) {}
