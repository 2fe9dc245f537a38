import { runScript } from "../Script.js"

/**
 * Webhook subscriptions and the outbox. An event row is written in the same transaction as the
 * change that causes it, with one delivery row per matching subscription; workers on any instance
 * claim due deliveries with FOR UPDATE SKIP LOCKED and record every attempt.
 */
export default runScript(`
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      url text NOT NULL,
      events text[] NOT NULL,
      description text,
      enabled boolean NOT NULL DEFAULT true,
      secret text,
      failing_since timestamptz,
      disabled_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id)
    );
    CREATE INDEX webhooks_list ON webhooks (organization_id, created_at DESC, id DESC);

    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      type text NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL,
      UNIQUE (organization_id, id)
    );

    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      webhook_id uuid NOT NULL,
      event_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempt_count integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CONSTRAINT webhook_deliveries_webhook_fk FOREIGN KEY (organization_id, webhook_id) REFERENCES webhooks (organization_id, id) ON DELETE CASCADE,
      CONSTRAINT webhook_deliveries_event_fk FOREIGN KEY (organization_id, event_id) REFERENCES webhook_events (organization_id, id)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_list ON webhook_deliveries (organization_id, webhook_id, created_at DESC, id DESC);

    CREATE TABLE webhook_attempts (
      id bigserial PRIMARY KEY,
      organization_id uuid NOT NULL,
      delivery_id uuid NOT NULL,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      duration_ms integer NOT NULL,
      response_body text,
      error text,
      CONSTRAINT webhook_attempts_delivery_fk FOREIGN KEY (organization_id, delivery_id) REFERENCES webhook_deliveries (organization_id, id) ON DELETE CASCADE
    );
    CREATE INDEX webhook_attempts_delivery ON webhook_attempts (organization_id, delivery_id, attempted_at);
  `)
