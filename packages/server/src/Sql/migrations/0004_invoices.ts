import { runScript } from "../Script.js"

/**
 * Invoices (their number series, projects and line items), payments and refunds, document versions.
 * Money in integer minor units (bigint). An invoice's status, amountPaid and paidAt are derived from
 * its payments by the domain's rules and stored with every change (under the invoice's row lock), so
 * that lists can filter on them; balance_due_minor is generated from total and amount paid.
 */
export default runScript(`
    CREATE TABLE invoice_number_series (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id),
      last_number integer NOT NULL CHECK (last_number > 0)
    );

    CREATE TABLE invoices (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      invoice_number text NOT NULL,
      client_id uuid NOT NULL,
      billing_contact_id uuid,
      status text NOT NULL CHECK (status IN ('draft', 'sent', 'paid', 'void', 'written_off')),
      subject text,
      issue_date date NOT NULL,
      due_date date NOT NULL,
      currency text NOT NULL,
      tax_rate numeric(7, 4) NOT NULL,
      subtotal_minor bigint NOT NULL,
      discount_minor bigint NOT NULL,
      tax_minor bigint NOT NULL,
      total_minor bigint NOT NULL,
      amount_paid_minor bigint NOT NULL DEFAULT 0,
      balance_due_minor bigint GENERATED ALWAYS AS (total_minor - amount_paid_minor) STORED,
      payment_terms text,
      notes text,
      line_items jsonb NOT NULL,
      sent_at timestamptz,
      voided_at timestamptz,
      paid_at timestamptz,
      supersedes_invoice_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK (due_date >= issue_date),
      CHECK (total_minor = subtotal_minor - discount_minor + tax_minor),
      CONSTRAINT invoices_number_unique UNIQUE (organization_id, invoice_number),
      CONSTRAINT invoices_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT invoices_billing_contact_fk FOREIGN KEY (organization_id, billing_contact_id) REFERENCES contacts (organization_id, id),
      CONSTRAINT invoices_supersedes_fk FOREIGN KEY (organization_id, supersedes_invoice_id) REFERENCES invoices (organization_id, id)
    );
    CREATE INDEX invoices_list ON invoices (organization_id, created_at DESC, id DESC);
    CREATE INDEX invoices_list_client ON invoices (organization_id, client_id, created_at DESC, id DESC);
    CREATE INDEX invoices_list_status ON invoices (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX invoices_updated ON invoices (organization_id, updated_at);
    CREATE INDEX invoices_due ON invoices (organization_id, due_date) WHERE status = 'sent';
    CREATE INDEX invoices_billing_contact ON invoices (organization_id, billing_contact_id) WHERE billing_contact_id IS NOT NULL;
    CREATE UNIQUE INDEX invoices_one_replacement ON invoices (organization_id, supersedes_invoice_id)
      WHERE supersedes_invoice_id IS NOT NULL;

    CREATE TABLE invoice_projects (
      organization_id uuid NOT NULL,
      invoice_id uuid NOT NULL,
      project_id uuid NOT NULL,
      position smallint NOT NULL,
      PRIMARY KEY (invoice_id, project_id),
      CONSTRAINT invoice_projects_invoice_fk FOREIGN KEY (organization_id, invoice_id)
        REFERENCES invoices (organization_id, id) ON DELETE CASCADE,
      CONSTRAINT invoice_projects_project_fk FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id)
    );
    CREATE INDEX invoice_projects_project ON invoice_projects (organization_id, project_id);

    -- What the API reads: an invoice with its project ids, in the order they were given.
    CREATE VIEW invoice_rows AS
      SELECT i.*, ARRAY(
        SELECT p.project_id FROM invoice_projects p WHERE p.invoice_id = i.id ORDER BY p.position
      ) AS project_ids
      FROM invoices i;

    CREATE TABLE payments (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      client_id uuid,
      invoice_id uuid,
      sale_id uuid,
      amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
      currency text NOT NULL,
      received_date date NOT NULL,
      method text NOT NULL CHECK (method IN ('processor', 'check', 'bank_transfer', 'cash', 'wallet_a', 'wallet_b', 'wallet_c', 'wire', 'other')),
      status text NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded', 'failed')),
      kind text NOT NULL CHECK (kind IN ('payment', 'refund', 'chargeback', 'dispute_fee', 'adjustment')),
      reference text,
      notes text,
      net_amount_minor bigint,
      payout_id uuid,
      refund_of_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((invoice_id IS NULL) <> (sale_id IS NULL)),
      CHECK (kind <> 'refund' OR (amount_minor < 0 AND refund_of_id IS NOT NULL)),
      CONSTRAINT payments_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT payments_invoice_fk FOREIGN KEY (organization_id, invoice_id) REFERENCES invoices (organization_id, id),
      CONSTRAINT payments_refund_of_fk FOREIGN KEY (organization_id, refund_of_id) REFERENCES payments (organization_id, id)
    );
    CREATE INDEX payments_list ON payments (organization_id, created_at DESC, id DESC);
    CREATE INDEX payments_list_invoice ON payments (organization_id, invoice_id, created_at DESC, id DESC);
    CREATE INDEX payments_list_client ON payments (organization_id, client_id, created_at DESC, id DESC);
    CREATE INDEX payments_list_sale ON payments (organization_id, sale_id, created_at DESC, id DESC) WHERE sale_id IS NOT NULL;
    CREATE INDEX payments_refund_of ON payments (organization_id, refund_of_id) WHERE refund_of_id IS NOT NULL;
    CREATE INDEX payments_updated ON payments (organization_id, updated_at);

    CREATE TABLE document_versions (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      document_type text NOT NULL CHECK (document_type IN ('smart-file', 'invoice', 'standalone-contract')),
      document_id uuid,
      document_ref jsonb,
      version_number integer NOT NULL CHECK (version_number >= 1),
      sub_version_number integer NOT NULL DEFAULT 0,
      version_status text NOT NULL CHECK (version_status IN ('issued', 'superseded', 'voided')),
      content_hash text NOT NULL,
      content jsonb NOT NULL,
      access_token_hash bytea,
      currency text NOT NULL,
      issued_at timestamptz,
      viewed_at timestamptz,
      accepted_at timestamptz,
      accepted_by text CHECK (accepted_by IN ('client', 'operator', 'signing', 'backfill')),
      superseded_at timestamptz,
      superseded_by_version_id uuid,
      voided_at timestamptz,
      quote_converted_at timestamptz,
      expires_at timestamptz,
      engagement_project_id uuid,
      parent_version_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      UNIQUE (organization_id, document_type, document_id, version_number, sub_version_number)
    );
    CREATE INDEX document_versions_list ON document_versions (organization_id, created_at DESC, id DESC);
    CREATE INDEX document_versions_document ON document_versions (organization_id, document_id, created_at DESC, id DESC);
    CREATE INDEX document_versions_updated ON document_versions (organization_id, updated_at);
    CREATE UNIQUE INDEX document_versions_one_issued ON document_versions (organization_id, document_type, document_id)
      WHERE version_status = 'issued';

    -- What the API reads: never the frozen content nor an access token.
    CREATE VIEW document_version_rows AS
      SELECT id, organization_id, document_type, document_id, document_ref, version_number, sub_version_number,
        version_status, content_hash, currency, issued_at, viewed_at, accepted_at, accepted_by, superseded_at,
        superseded_by_version_id, voided_at, quote_converted_at, expires_at, engagement_project_id,
        parent_version_id, created_at, updated_at
      FROM document_versions;
  `)
