import { runScript } from "../Script.js"

/**
 * Organizations, their businesses and API keys; clients, contacts and projects. Every table has
 * organization_id; every index that serves an API query starts with it; a link between records is a
 * composite foreign key (organization_id, id), so a record can only ever point at one of its own
 * organization.
 */
export default runScript(`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE businesses (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      is_default boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id)
    );
    CREATE UNIQUE INDEX businesses_one_default ON businesses (organization_id) WHERE is_default;

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text,
      key_hash bytea NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      scopes text[] NOT NULL,
      rate_limit integer NOT NULL DEFAULT 1000 CHECK (rate_limit > 0),
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_organization ON api_keys (organization_id);

    CREATE TABLE clients (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      business_id uuid NOT NULL,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      status text NOT NULL CHECK (status IN ('new', 'contacted', 'qualified', 'active', 'inactive', 'declined', 'spam')),
      notes text,
      tax_default_taxable boolean NOT NULL DEFAULT false,
      tax_override_rate boolean NOT NULL DEFAULT false,
      tax_rate numeric(7, 4) CHECK (tax_rate BETWEEN 0 AND 100),
      invoice_reminders_enabled boolean NOT NULL DEFAULT true,
      attach_invoice_pdf boolean NOT NULL DEFAULT true,
      attach_receipt_pdf boolean NOT NULL DEFAULT true,
      recurring_billing jsonb,
      source_submission_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CONSTRAINT clients_business_fk FOREIGN KEY (organization_id, business_id) REFERENCES businesses (organization_id, id)
    );
    CREATE INDEX clients_list ON clients (organization_id, created_at DESC, id DESC);
    CREATE INDEX clients_list_status ON clients (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX clients_updated ON clients (organization_id, updated_at);

    CREATE TABLE contacts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      client_id uuid,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      email text,
      phone text,
      title text,
      role text NOT NULL CHECK (role IN ('primary', 'billing', 'other')),
      is_primary boolean NOT NULL DEFAULT false,
      source_submission_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CONSTRAINT contacts_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id)
    );
    CREATE INDEX contacts_list ON contacts (organization_id, created_at DESC, id DESC);
    CREATE INDEX contacts_list_client ON contacts (organization_id, client_id, created_at DESC, id DESC);
    CREATE INDEX contacts_updated ON contacts (organization_id, updated_at);
    CREATE UNIQUE INDEX contacts_email_per_client ON contacts (organization_id, client_id, lower(email))
      WHERE client_id IS NOT NULL AND email IS NOT NULL;
    CREATE UNIQUE INDEX contacts_one_primary ON contacts (organization_id, client_id)
      WHERE client_id IS NOT NULL AND is_primary;

    CREATE TABLE projects (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      client_id uuid,
      business_id uuid NOT NULL,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      status text NOT NULL CHECK (status IN ('active', 'paused', 'completed')),
      pipeline_stage_id uuid,
      start_date date,
      end_date date,
      event_date date,
      contract_value_minor bigint CHECK (contract_value_minor >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK (start_date IS NULL OR end_date IS NULL OR start_date <= end_date),
      CONSTRAINT projects_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT projects_business_fk FOREIGN KEY (organization_id, business_id) REFERENCES businesses (organization_id, id)
    );
    CREATE INDEX projects_list ON projects (organization_id, created_at DESC, id DESC);
    CREATE INDEX projects_list_client ON projects (organization_id, client_id, created_at DESC, id DESC);
    CREATE INDEX projects_list_status ON projects (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX projects_updated ON projects (organization_id, updated_at);
  `)
