import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Client, ClientCreate, ClientId, ClientList, ClientListParams, ClientUpdate } from "./Client.js"

const clients = crudEndpoints("clients", { id: ClientId, resource: Client, create: ClientCreate, update: ClientUpdate, listQuery: ClientListParams, list: ClientList }, {
  what: "a client",
  list: "Lists clients, newest first. Leads are clients whose status is new, contacted or qualified: `?status=new`.",
  update: "Updates a client; taxSettings fields are merged over the current ones.",
  delete: "Deletes a client that no contact or project points at (else 409 record_has_dependents)."
})

export class ClientsApi extends resourceGroup(
  "clients",
  { title: "Clients", description: "The people and companies the business works for. Leads are clients whose status is new, contacted or qualified." },
  clients.list, clients.create, clients.get, clients.update, clients.delete
) {}
