import { Effect } from "effect"
import type { FastQuery } from "./Fast.js"

/** The number series: one row per organization, its last number taken. */
export type SeriesTable = "invoice_number_series" | "sale_number_series" | "contract_number_series"

/**
 * The organization's next number of a series (`invoice_number_series`, `sale_number_series`, `contract_number_series`): 1, 2, …
 * without gaps or duplicates. The series row stays locked until the caller's transaction ends, so
 * concurrent writers take turns; the caller formats the number (`INV-0001`, `S-0001`).
 */
export const nextInSeries = (fast: FastQuery, table: SeriesTable, organizationId: string) =>
  takeFromSeries(fast, table, organizationId, 1)

/**
 * The first of the organization's next `count` numbers of a series (an import numbers its new records in
 * one statement): they are first, first + 1, … first + count − 1, taken together, without gaps.
 */
export const takeFromSeries = (fast: FastQuery, table: SeriesTable, organizationId: string, count: number) =>
  Effect.map(
    fast.rows<{ readonly lastNumber: number }>(
      `INSERT INTO ${table} (organization_id, last_number) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO UPDATE SET last_number = ${table}.last_number + $2
       RETURNING last_number`,
      [organizationId, count]
    ),
    ([series]) => series.lastNumber - count + 1
  )
