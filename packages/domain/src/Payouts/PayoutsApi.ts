import { readEndpoints, resourceGroup } from "../Common/Crud.js"
import { Payout, PayoutId, PayoutList, PayoutListParams } from "./Payout.js"

const payouts = readEndpoints("payouts", { id: PayoutId, resource: Payout, listQuery: PayoutListParams, list: PayoutList }, {
  what: "a payout",
  list: "Lists payouts, newest first. Filters status, arrivalDateFrom/arrivalDateTo (inclusive) and reconciled=true|false (whether lastReconciledAt is set)."
})

/** Read-only: payouts are the processor's deposits, brought by the operator import. */
export class PayoutsApi extends resourceGroup(
  "payouts",
  {
    title: "Payouts",
    description: "The payment processor's deposits into the bank account. The totals and paymentCount of a payout that is not reconciled are null: unknown, never 0."
  },
  payouts.list, payouts.get
) {}
