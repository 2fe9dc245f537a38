/**
 * The rules of a contract write (issue 16; contract: "Contracts, client documents, milestones"), pure:
 * the stored contract and the body in, a decision out. The server locks the row, calls
 * `decideContractUpdate` (or `checkContractDelete`), and applies what it says.
 *
 * An update, in this order:
 * 1. an archived contract takes `{"archived": false}` alone, nothing else (409 archived_record_read_only);
 * 2. a voided contract is final: only `archived` may still change (409 record_immutable);
 * 3. the dates it ends up with are in order (400 on expirationDate);
 * 4. on a contract that is not a draft, a change of effectiveDate or expirationDate is an amendment: a
 *    new document version is issued (the previous one superseded) and `contract_amended` is emitted with
 *    the previous dates.
 */
import { Result } from "effect"
import { refuse, Refusal } from "../Common/Refusal.js"
import { type Contract, type ContractPreviousDates, type ContractUpdate, contractDatesInOrder, EXPIRATION_DATE_MESSAGE } from "./Contract.js"
import { archivedContractRefusal, type ContractStatusValue } from "./Moves.js"

/** The two dates of a contract, null when unknown. */
export interface ContractDates {
  readonly effectiveDate: string | null
  readonly expirationDate: string | null
}

/** The dates part of an update body: a field left out keeps the stored date, null clears it. */
export interface ContractDatesChange {
  readonly effectiveDate?: string | null | undefined
  readonly expirationDate?: string | null | undefined
}

/** The dates a contract ends up with: the change merged over the stored dates. */
export const contractDatesAfter = (contract: ContractDates, change: ContractDatesChange): ContractDates => ({
  effectiveDate: change.effectiveDate === undefined ? contract.effectiveDate : change.effectiveDate,
  expirationDate: change.expirationDate === undefined ? contract.expirationDate : change.expirationDate
})

/**
 * The dates a contract ends up with are in order: else 400 invalid_payload on expirationDate, naming
 * the effective date (which may be the stored one, not in the body).
 */
export const checkContractDates = (d: ContractDates): Result.Result<void, Refusal> =>
  contractDatesInOrder(d) ? Result.void : refuse(Refusal.invalid(["expirationDate"], `${EXPIRATION_DATE_MESSAGE} (${d.effectiveDate})`))

/** Whether a body is exactly `{"archived": false}`: the one write an archived contract takes. */
export const unarchivesOnly = (update: ContractUpdate): boolean => {
  const named = Object.entries(update).filter(([, value]) => value !== undefined)
  return named.length === 1 && update.archived === false
}

/** The archive state of a contract. */
export interface ContractArchive {
  readonly archived: boolean
  readonly archivedAt: Date | null
}

/**
 * The archive rule alone: an archived contract refuses every body but `{"archived": false}` (which
 * un-archives it: archivedAt null); `archived: true` archives a contract (archivedAt `at`); otherwise
 * the state stays.
 */
export const contractArchiveAfter = (contract: ContractArchive, update: ContractUpdate, at: Date): Result.Result<ContractArchive, Refusal> => {
  if (contract.archived) return unarchivesOnly(update) ? Result.succeed({ archived: false, archivedAt: null }) : refuse(archivedContractRefusal)
  return Result.succeed(update.archived === true ? { archived: true, archivedAt: at } : { archived: false, archivedAt: null })
}

/**
 * The amendment an update makes, if any: on a contract that is not a draft, when effectiveDate or
 * expirationDate actually changes, the previous dates (`data.previousDates` of `contract_amended`).
 * A draft is never amended (it has no issued version); setting the same dates amends nothing.
 */
export const contractAmendment = (
  contract: ContractDates & { readonly status: ContractStatusValue },
  change: ContractDatesChange
): ContractPreviousDates | undefined => {
  if (contract.status === "draft") return undefined
  const after = contractDatesAfter(contract, change)
  return after.effectiveDate === contract.effectiveDate && after.expirationDate === contract.expirationDate
    ? undefined
    : { effectiveDate: contract.effectiveDate, expirationDate: contract.expirationDate }
}

/** What an update does, once allowed: the archive state and dates to store, and the amendment, if any. */
export interface ContractUpdateDecision extends ContractArchive, ContractDates {
  readonly amendment: ContractPreviousDates | undefined
}

/** The stored contract as the update rules read it. */
export type ContractForUpdate = ContractArchive & ContractDates & { readonly status: ContractStatusValue }

/** Every rule of a PATCH, in the order of the module's comment. */
export const decideContractUpdate = (
  contract: ContractForUpdate,
  update: ContractUpdate,
  at: Date
): Result.Result<ContractUpdateDecision, Refusal> => {
  const archive = contractArchiveAfter(contract, update, at)
  if (Result.isFailure(archive)) return Result.fail(archive.failure)
  if (contract.status === "voided" && Object.entries(update).some(([key, value]) => value !== undefined && key !== "archived")) {
    return refuse(Refusal.conflict("The contract is voided and cannot change; only archived can still be set", "record_immutable"))
  }
  const dates = contractDatesAfter(contract, update)
  const inOrder = checkContractDates(dates)
  if (Result.isFailure(inOrder)) return Result.fail(inOrder.failure)
  return Result.succeed({ ...archive.success, ...dates, amendment: contractAmendment(contract, update) })
}

/**
 * Whether a contract can be deleted: an archived one is read-only (409 archived_record_read_only, a
 * draft included); otherwise drafts only (409 conflict: void it instead).
 */
export const checkContractDelete = (contract: { readonly status: ContractStatusValue; readonly archived: boolean }): Result.Result<void, Refusal> =>
  contract.archived
    ? refuse(archivedContractRefusal)
    : contract.status !== "draft"
    ? refuse(Refusal.conflict(`A ${contract.status} contract cannot be deleted; only drafts can (void it instead)`))
    : Result.void

/**
 * What the client sees of a contract: the content of its document version, hashed into the version's
 * contentHash (SHA-256 of the canonical JSON of this, as for invoices). Status, signing progress,
 * archiving, the project and timestamps are not content. Every value is JSON already.
 */
export const contractContent = (contract: Contract) => ({
  contractNumber: contract.contractNumber,
  title: contract.title,
  clientId: contract.clientId,
  billingContactId: contract.billingContactId,
  issueDate: contract.issueDate,
  effectiveDate: contract.effectiveDate,
  expirationDate: contract.expirationDate,
  currency: contract.currency,
  contractValue: contract.contractValue,
  signers: contract.signers.map((signer) => ({
    contactId: signer.contactId,
    name: signer.name,
    email: signer.email,
    role: signer.role,
    order: signer.order
  }))
})
