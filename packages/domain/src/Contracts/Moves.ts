/**
 * The contract move table (issue 16; contract: "Contracts, client documents, milestones"). A contract's
 * status never changes through the API: creation makes a draft, and the signing flow, managed outside
 * the API, moves it. The operator command `contract advance --to STATUS` stands in for that flow.
 *
 * | from      | to                           |
 * |-----------|------------------------------|
 * | draft     | sent, voided                 |
 * | sent      | viewed, expired, voided      |
 * | viewed    | active, expired, voided      |
 * | active    | completed, expired, voided   |
 * | completed | nothing (terminal)           |
 * | expired   | nothing (terminal)           |
 * | voided    | nothing (terminal)           |
 *
 * Every other move, staying where it is included, is refused (409). An archived contract is read-only:
 * it moves nowhere until it is un-archived (409 archived_record_read_only).
 */
import { Result } from "effect"
import { refuse, Refusal } from "../Common/Refusal.js"

export const ContractStatuses = ["draft", "sent", "viewed", "active", "completed", "expired", "voided"] as const
export type ContractStatusValue = (typeof ContractStatuses)[number]

/** Where each status may move to: the table above. */
export const contractMoves: { readonly [From in ContractStatusValue]: ReadonlyArray<ContractStatusValue> } = {
  draft: ["sent", "voided"],
  sent: ["viewed", "expired", "voided"],
  viewed: ["active", "expired", "voided"],
  active: ["completed", "expired", "voided"],
  completed: [],
  expired: [],
  voided: []
}

/** Whether the table has the move `from` → `to`. */
export const canAdvance = (from: ContractStatusValue, to: ContractStatusValue): boolean => contractMoves[from].includes(to)

/** A status no move leaves: completed, expired and voided. */
export const isFinalContractStatus = (status: ContractStatusValue): boolean => contractMoves[status].length === 0

/** What a move does besides setting the status. */
export interface ContractAdvance {
  readonly status: ContractStatusValue
  /**
   * The contract's document versions: `issue` one (sending: documentType standalone-contract), `void`
   * the issued one (voiding; a draft has none), or leave them.
   */
  readonly version: "issue" | "void" | "none"
  /** The contract was signed (it became active): signedDate is set, unless it already is. */
  readonly signs: boolean
}

/** The refusal for an archived contract: read-only until `{"archived": false}`. */
export const archivedContractRefusal = Refusal.conflict(
  "The contract is archived and read-only; un-archive it first with {\"archived\": false}",
  "archived_record_read_only"
)

const list = (statuses: ReadonlyArray<string>): string =>
  statuses.length <= 1 ? statuses.join("") : `${statuses.slice(0, -1).join(", ")} or ${statuses[statuses.length - 1]}`

/**
 * The move of a contract to `to` (`contract advance`): what it does, or a 409 that says why not and,
 * when there is one, where the contract can go instead.
 */
export const advanceContract = (
  contract: { readonly status: ContractStatusValue; readonly archived: boolean },
  to: ContractStatusValue
): Result.Result<ContractAdvance, Refusal> => {
  const from = contract.status
  if (contract.archived) return refuse(archivedContractRefusal)
  if (isFinalContractStatus(from)) return refuse(Refusal.conflict(`A ${from} contract is final; it cannot move to ${to}`))
  if (!canAdvance(from, to)) {
    return refuse(Refusal.conflict(`A ${from} contract cannot move to ${to}; it can move to ${list(contractMoves[from])}`))
  }
  return Result.succeed({
    status: to,
    version: to === "sent" ? "issue" : to === "voided" ? "void" : "none",
    signs: to === "active"
  })
}
