/**
 * The invoice move table (issue 5, rule 4; section 3): which status a client may ask for, from where.
 *
 * | from    | PATCH status sent | PATCH status void                     | any other PATCH |
 * |---------|-------------------|---------------------------------------|-----------------|
 * | draft   | send              | void                                  | allowed         |
 * | sent    | nothing (no-op)   | void when no money is on it, else 409 | allowed         |
 * | paid    | 409               | 409 (refund first)                    | allowed         |
 * | void    | 409               | 409                                   | 409 (terminal)  |
 * | written_off | 409           | 409                                   | allowed         |
 *
 * paid and written_off are set by the system, never by a client (400), and so is draft.
 * Reissue (POST /invoices/{id}/reissue) takes a sent invoice without money (voiding it) or a void one.
 */
import { Result } from "effect"
import { refuse, Refusal } from "../Common/Refusal.js"
import type { InvoiceStatusValue } from "./Settlement.js"

/** What a PATCH does to the status. */
export type Move = "send" | "void" | "none"

export interface MoveState {
  readonly status: InvoiceStatusValue
  /** Money on the invoice, in minor units (Σ of its succeeded payments, refunds and adjustments). */
  readonly amountPaid: number
}

/** Refusals are the domain's `Refusal`: `invalid` (400, on status) is never acceptable, `conflict` (409) not from this state. */
const conflict = (message: string): Result.Result<never, Refusal> => refuse(Refusal.conflict(message))

/** Whether the invoice can change at all (a void invoice is terminal). */
export const checkChangeable = (state: MoveState): Result.Result<void, Refusal> =>
  state.status === "void" ? conflict("The invoice is void and cannot change; reissue it to correct it") : Result.void

/**
 * The move a PATCH asks for, from the invoice's state: `requested` is the body's status, or undefined
 * when the body does not name one.
 */
export const decideMove = (state: MoveState, requested: InvoiceStatusValue | undefined): Result.Result<Move, Refusal> => {
  const changeable = checkChangeable(state)
  if (Result.isFailure(changeable)) return Result.fail(changeable.failure)
  switch (requested) {
    case undefined:
      return Result.succeed("none")
    case "paid":
    case "written_off":
    case "draft":
      return refuse(Refusal.invalid(["status"], `status ${requested} cannot be set through the API; an invoice becomes paid from its payments`))
    case "sent":
      return state.status === "draft"
        ? Result.succeed("send")
        : state.status === "sent"
        ? Result.succeed("none")
        : conflict(`A ${state.status} invoice cannot be sent again`)
    case "void":
      if (state.status !== "draft" && state.status !== "sent") {
        return conflict(`A ${state.status} invoice cannot be voided; refund its payments first`)
      }
      return state.amountPaid !== 0
        ? conflict("The invoice has payments on it; refund them first, then void it")
        : Result.succeed("void")
  }
}

/** What a reissue does to the invoice it replaces: void it first (a sent one), or nothing (already void). */
export const decideReissue = (
  state: MoveState & { readonly replaced: boolean }
): Result.Result<"void" | "none", Refusal> => {
  if (state.replaced) return conflict("The invoice was already reissued")
  if (state.status === "void") return Result.succeed("none")
  if (state.status !== "sent") {
    return conflict(
      state.status === "draft"
        ? "A draft invoice cannot be reissued; change or delete it instead"
        : `A ${state.status} invoice cannot be reissued; refund its payments first`
    )
  }
  return state.amountPaid !== 0
    ? conflict("The invoice has payments on it; refund them first, then reissue it")
    : Result.succeed("void")
}

/** Whether an invoice can be deleted: drafts only, and only while no payment ever touched them. */
export const checkDeletable = (state: { readonly status: InvoiceStatusValue; readonly paymentCount: number }): Result.Result<void, Refusal> =>
  state.status !== "draft"
    ? refuse(Refusal.conflict(`A ${state.status} invoice cannot be deleted; void it instead`, "invoice_not_deletable"))
    : state.paymentCount > 0
    ? refuse(Refusal.conflict("A payment touched this invoice; it cannot be deleted", "invoice_not_deletable"))
    : Result.void
