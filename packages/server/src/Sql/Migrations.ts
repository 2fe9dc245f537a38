import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import foundation from "./migrations/0001_foundation.js"
import limits from "./migrations/0002_limits.js"
import webhooks from "./migrations/0003_webhooks.js"
import invoices from "./migrations/0004_invoices.js"
import timeline from "./migrations/0005_timeline.js"
import oauth from "./migrations/0006_oauth.js"
import webhookFairness from "./migrations/0007_webhook_fairness.js"
import salesPayouts from "./migrations/0008_sales_payouts.js"
import organizationSettings from "./migrations/0009_organization_settings.js"
import contracts from "./migrations/0010_contracts.js"
import clientDocumentsMilestones from "./migrations/0011_client_documents_milestones.js"

/** Forward-only migrations, numbered. Add a file under migrations/ and a line here. */
export const migrations = Migrator.fromRecord({
  "0001_foundation": foundation,
  "0002_limits": limits,
  "0003_webhooks": webhooks,
  "0004_invoices": invoices,
  "0005_timeline": timeline,
  "0006_oauth": oauth,
  "0007_webhook_fairness": webhookFairness,
  "0008_sales_payouts": salesPayouts,
  "0009_organization_settings": organizationSettings,
  "0010_contracts": contracts,
  "0011_client_documents_milestones": clientDocumentsMilestones
})

/** Any constant: the key of the advisory lock that serializes migrations across instances. */
const MIGRATION_LOCK = 4_242_001

const runMigrator = Migrator.make({})

/**
 * Runs the pending migrations at start. The whole run holds a transaction-scoped advisory lock, so
 * several instances starting together migrate once and the others wait, then find nothing to do.
 */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.all([
      sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`,
      // The table (the Migrator's own shape) is made here first, under the lock. Effect 4's Migrator
      // probes for it without a failing statement (Effect 3's failed one, which aborted this
      // transaction), but a CREATE of its own that failed would still abort it.
      sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        migration_id integer PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        name text NOT NULL
      )`,
      runMigrator({ loader: migrations, table: "schema_migrations" })
    ]).pipe(Effect.map(([, , done]) => done))
  )
}).pipe(Effect.withSpan("migrate"))
