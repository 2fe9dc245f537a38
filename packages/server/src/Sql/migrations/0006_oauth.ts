import { runScript } from "../Script.js"

/**
 * OAuth 2.0: users (members of organizations), apps (clients), grants (one per consent: the app acting
 * for a user on one organization), single-use codes, rotating refresh tokens, the signing keys of
 * access tokens, browser sessions of the sign-in page, and windows that count failed sign-ins. Secrets,
 * passwords, codes, refresh tokens and session ids are stored only as hashes.
 */
export default runScript(`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      email text NOT NULL,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email ON users (lower(email));

    CREATE TABLE user_organizations (
      user_id uuid NOT NULL REFERENCES users (id),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, organization_id)
    );

    CREATE TABLE oauth_apps (
      id uuid PRIMARY KEY,
      client_id text NOT NULL UNIQUE,
      secret_hash text NOT NULL,
      name text NOT NULL,
      description text,
      homepage_url text,
      logo_url text,
      redirect_uris text[] NOT NULL,
      scopes text[] NOT NULL,
      disabled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE oauth_grants (
      id uuid PRIMARY KEY,
      app_id uuid NOT NULL REFERENCES oauth_apps (id),
      user_id uuid NOT NULL REFERENCES users (id),
      organization_id uuid NOT NULL REFERENCES organizations (id),
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revoked_reason text
    );
    CREATE INDEX oauth_grants_app_user ON oauth_grants (app_id, user_id);

    CREATE TABLE oauth_codes (
      code_hash bytea PRIMARY KEY,
      grant_id uuid NOT NULL REFERENCES oauth_grants (id),
      redirect_uri text NOT NULL,
      code_challenge text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL
    );

    CREATE TABLE oauth_refresh_tokens (
      token_hash bytea PRIMARY KEY,
      grant_id uuid NOT NULL REFERENCES oauth_grants (id),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);

    CREATE TABLE oauth_signing_keys (
      kid text PRIMARY KEY,
      algorithm text NOT NULL,
      private_jwk jsonb NOT NULL,
      public_jwk jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      retired_at timestamptz
    );
    CREATE UNIQUE INDEX oauth_signing_keys_one_current ON oauth_signing_keys ((true)) WHERE retired_at IS NULL;

    CREATE TABLE auth_sessions (
      id_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      csrf text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX auth_sessions_expiry ON auth_sessions (expires_at);

    -- Failed sign-ins and token requests, counted in windows ("signin-email:<email>", "signin-ip:<address>",
    -- "token:<client id>"), shared by every instance.
    CREATE TABLE auth_windows (
      bucket text PRIMARY KEY,
      window_start timestamptz NOT NULL,
      count integer NOT NULL
    );
  `)
