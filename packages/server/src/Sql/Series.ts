import { Effect } from "effect"
import type { FastQuery } from "./Fast.js"

/**
 * The organization's next number of a series (`invoice_number_series`, `sale_number_series`): 1, 2, …
 * without gaps or duplicates. The series row stays locked until the caller's transaction ends, so
 * concurrent writers take turns; the caller formats the number (`INV-0001`, `S-0001`).
 */
export const nextInSeries = (fast: FastQuery, table: "invoice_number_series" | "sale_number_series", organizationId: string) =>
  Effect.map(
    fast.rows<{ readonly lastNumber: number }>(
      `INSERT INTO ${table} (organization_id, last_number) VALUES ($1, 1)
       ON CONFLICT (organization_id) DO UPDATE SET last_number = ${table}.last_number + 1
       RETURNING last_number`,
      [organizationId]
    ),
    ([series]) => series.lastNumber
  )
