/**
 * Contracts (issue 16; contract "Contracts, client documents, milestones"): the orchestration over
 * `ContractsRepo` (SQL). Every change runs in one transaction that holds the contract's row lock, decides
 * with the domain's rules (`decideContractUpdate`, `checkContractDelete`, `advanceContract`), follows with
 * the contract's document versions (documentType standalone-contract, content `contractContent`) and
 * records its events. The operator command `contract advance` calls `advance` with the organization it
 * names, as the signing flow (outside the API) would.
 */
import {
  advanceContract,
  checkContractDelete,
  type Contract,
  type ContractCreate,
  contractContent,
  type ContractId,
  type ContractStatusValue,
  type ContractUpdate,
  decideContractUpdate,
  notFound,
  orRefuse,
  type PageRequest,
  toMinorUnits
} from "@bizops/domain"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { DocumentVersionsRepo } from "../DocumentVersions/DocumentVersionsRepo.js"
import { refuseViolations } from "../Sql/Constraints.js"
import { definedOnly } from "../Sql/Lists.js"
import { Outbox, type Owner } from "../Webhooks/Outbox.js"
import { type ContractFilters, ContractsRepo, toContract } from "./ContractsRepo.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const makeContracts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* ContractsRepo
  const outbox = yield* Outbox
  const versions = yield* DocumentVersionsRepo

  /** One transaction; constraint violations become the contract's 400/409. */
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => refuseViolations(sql.withTransaction(effect))

  /** The contract's row, locked for the change the caller's transaction makes; 404 when the organization has none. */
  const locked = (owner: Owner, id: string) =>
    Effect.flatMap(rows.lock(owner, id), (row) => row === undefined ? Effect.fail(notFound("contract")) : Effect.succeed(row))

  /** Issues a version of what the client sees of the contract (superseding the issued one). */
  const issueVersion = (owner: Owner, contract: Contract, at: Date) =>
    versions.issue(owner, { type: "standalone-contract", id: contract.id, currency: contract.currency }, contractContent(contract), at)

  const list = (filters: ContractFilters, page: PageRequest) => rows.list(filters, page)

  const get = (id: ContractId) => rows.get(id)

  /**
   * Creates a draft numbered from the organization's series, in the organization's currency. The links
   * are checked before the number is taken, so a refused request leaves no gap (the transaction rolls
   * back the series too).
   */
  const create = (owner: Owner, input: ContractCreate) =>
    transaction(Effect.gen(function*() {
      const at = yield* now
      yield* rows.checkLinks(owner, input)
      const currency = yield* rows.organizationCurrency(owner)
      const contract = toContract(yield* rows.insert(owner, {
        id: randomUUID(),
        contractNumber: yield* rows.nextNumber(owner),
        title: input.title,
        clientId: input.clientId,
        billingContactId: input.billingContactId ?? null,
        projectId: input.projectId ?? null,
        sourceTemplateId: input.sourceTemplateId ?? null,
        issueDate: input.issueDate ?? null,
        effectiveDate: input.effectiveDate ?? null,
        expirationDate: input.expirationDate ?? null,
        currency,
        contractValueMinor: input.contractValue == null ? null : toMinorUnits(input.contractValue),
        at
      }))
      yield* outbox.created(owner, "contract", contract)
      return contract
    }))

  /**
   * Changes title, dates or the archive state as `decideContractUpdate` allows. A body that changes
   * nothing answers the contract as it is, without an event. An amendment (new dates on a contract that
   * is not a draft) issues a new version, superseding the previous one, and emits `contract_amended`
   * after `contract_updated`.
   */
  const update = (owner: Owner, id: ContractId, input: ContractUpdate) =>
    transaction(Effect.gen(function*() {
      const at = yield* now
      const current = yield* locked(owner, id)
      const decision = yield* orRefuse(decideContractUpdate(current, input, at))
      // Only what changes is written: a field the body left out, or gave its stored value, is left alone.
      const archiving = decision.archived !== current.archived
      const columns = definedOnly({
        title: input.title !== current.title ? input.title : undefined,
        effectiveDate: decision.effectiveDate !== current.effectiveDate ? decision.effectiveDate : undefined,
        expirationDate: decision.expirationDate !== current.expirationDate ? decision.expirationDate : undefined,
        archived: archiving ? decision.archived : undefined,
        archivedAt: archiving ? decision.archivedAt : undefined
      })
      const before = toContract(current)
      if (Object.keys(columns).length === 0) return before
      const after = toContract(yield* rows.updateColumns(owner, id, { ...columns, updatedAt: at }))
      if (decision.amendment !== undefined) yield* issueVersion(owner, after, at)
      yield* outbox.updated(owner, "contract", before, after)
      if (decision.amendment !== undefined) yield* outbox.record(owner, "contract_amended", after, { previousDates: decision.amendment })
      return after
    }))

  /** Deletes a draft that is not archived (`checkContractDelete`), with `contract_deleted`. */
  const remove = (owner: Owner, id: ContractId) =>
    transaction(Effect.gen(function*() {
      const current = yield* locked(owner, id)
      yield* orRefuse(checkContractDelete(current))
      yield* rows.remove(owner, id)
      yield* outbox.deleted(owner, "contract", toContract(current))
    }))

  /**
   * Moves a contract along the move table (`advanceContract`): sending issues a version, voiding voids
   * the issued one, becoming active signs it (signedDate, unless set). Emits `contract_updated`.
   */
  const advance = (owner: Owner, id: string, to: ContractStatusValue) =>
    transaction(Effect.gen(function*() {
      const at = yield* now
      const current = yield* locked(owner, id)
      const move = yield* orRefuse(advanceContract(current, to))
      const after = toContract(yield* rows.updateColumns(owner, id, {
        status: move.status,
        ...(move.signs && current.signedDate === null ? { signedDate: at } : {}),
        updatedAt: at
      }))
      if (move.version === "issue") yield* issueVersion(owner, after, at)
      if (move.version === "void") yield* versions.voidIssued(owner, { type: "standalone-contract", id: after.id }, at)
      yield* outbox.updated(owner, "contract", toContract(current), after)
      return { contract: after }
    }))

  return { list, get, create, update, remove, advance } as const
})

/**
 * Contracts, always scoped by the organization: the HTTP operations (the principal's) and the operator's
 * `contract advance` (the organization it names).
 */
export class Contracts extends Context.Service<Contracts, Effect.Success<typeof makeContracts>>()("@bizops/server/Contracts") {
  static readonly layer = Layer.effect(Contracts, makeContracts).pipe(
    Layer.provide(Layer.mergeAll(ContractsRepo.layer, DocumentVersionsRepo.layer))
  )
}
