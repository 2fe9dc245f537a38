import { DEFAULT_CURRENCY } from "@bizops/domain"
import { Effect } from "effect"
import type { FastQuery } from "./Fast.js"

/**
 * The organization's currency (`org update --currency`; USD until set): the currency of every money record it
 * creates without naming one (a contract, an imported sale or payout, a smart-file's versions). Invoices read it
 * with the client's tax settings, in the same statement.
 */
export const organizationCurrency = (fast: FastQuery, organizationId: string) =>
  Effect.map(
    fast.rows<{ readonly currency: string }>(`SELECT currency FROM organizations WHERE id = $1`, [organizationId]),
    ([row]) => row?.currency ?? DEFAULT_CURRENCY
  )
