import { runScript } from "../Script.js"

/**
 * Fair, concurrent webhook delivery: a delivery in flight holds a lease (`leased_until`) instead of having
 * its next attempt pushed forward, so a worker can count what each subscription has in flight (across
 * instances) and claim per subscription, oldest first within each, round-robin across organizations.
 */
export default runScript(`
    ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
    DROP INDEX webhook_deliveries_due;
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (organization_id, webhook_id, next_attempt_at, id)
      WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_in_flight ON webhook_deliveries (organization_id, webhook_id)
      WHERE leased_until IS NOT NULL;
  `)
