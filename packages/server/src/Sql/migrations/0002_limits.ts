import { runScript } from "../Script.js"

/**
 * Rate-limit windows and idempotency records, shared by every instance of the service.
 * - rate_limits: one row per credential ("key:<api key id>"); a fixed window of one hour that starts
 *   with the credential's first request after the previous window ended.
 * - idempotency_keys: the stored response of a POST or PATCH sent with an Idempotency-Key, per
 *   (organization, credential, key), kept 24 hours.
 */
export default runScript(`
    CREATE TABLE rate_limits (
      bucket text PRIMARY KEY,
      organization_id uuid NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL
    );

    CREATE TABLE idempotency_keys (
      organization_id uuid NOT NULL,
      credential_id text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      status integer NOT NULL,
      headers jsonb NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (organization_id, credential_id, key)
    );
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
  `)
