import { crudEndpoints, resourceGroup } from "../Common/Crud.js"
import { Contract, ContractCreate, ContractId, ContractList, ContractListParams, ContractUpdate } from "./Contract.js"

const contracts = crudEndpoints("contracts", { id: ContractId, resource: Contract, create: ContractCreate, update: ContractUpdate, listQuery: ContractListParams, list: ContractList }, {
  what: "a contract",
  list: "Lists contracts, newest first; filters clientId, projectId, status and archived (true or false).",
  create:
    "Creates a draft contract for a client (clientId is required), numbered from the organization's series (C-0001, ...), with no signers, signingMode client_only, contentType richtext and the organization's currency. Creation makes drafts only: the signing flow moves a contract on. expirationDate before effectiveDate is 400.",
  update:
    "Updates a contract's title, dates or archived flag. archived true archives it (archivedAt is set); an archived contract is read-only: any body other than {\"archived\": false} alone is 409 archived_record_read_only. A voided contract can only be archived or un-archived (409 record_immutable). expirationDate before effectiveDate, stored or given, is 400. On a contract that is not a draft, a change of effectiveDate or expirationDate is an amendment: a new document version is issued (the previous one superseded) and contract_amended is emitted with the previous dates.",
  delete: "Deletes a draft contract; any other status is 409 conflict (void it instead), and an archived contract 409 archived_record_read_only."
})

export class ContractsApi extends resourceGroup(
  "contracts",
  { title: "Contracts", description: "Standalone contracts with a client: their dates, value and signers. Created as drafts; sent, signed and completed by the signing flow, outside the API." },
  contracts.list, contracts.create, contracts.get, contracts.update, contracts.delete
) {}
