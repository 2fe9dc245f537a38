import { runScript } from "../Script.js"

/**
 * Contracts (issue 16) with their number series (C-0001, ... per organization, as invoices). The client,
 * the billing contact and the project are the organization's (composite foreign keys). The value is in
 * cents (MoneyAmount's two decimals, as a project's contractValue); the signers, written by the signing
 * flow, are jsonb. The checks repeat the domain's rules as a last line: dates in order, archivedAt set
 * exactly when archived.
 */
export default runScript(`
    CREATE TABLE contract_number_series (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id),
      last_number integer NOT NULL CHECK (last_number > 0)
    );

    CREATE TABLE contracts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      contract_number text NOT NULL,
      title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 300),
      client_id uuid NOT NULL,
      billing_contact_id uuid,
      project_id uuid,
      source_template_id uuid,
      status text NOT NULL CHECK (status IN ('draft', 'sent', 'viewed', 'active', 'completed', 'expired', 'voided')),
      signing_mode text NOT NULL CHECK (signing_mode IN ('client_only', 'counter_sign', 'auto_counter_sign')),
      content_type text NOT NULL CHECK (content_type IN ('richtext', 'pdf')),
      issue_date date,
      effective_date date,
      expiration_date date,
      signed_date timestamptz,
      currency text NOT NULL,
      contract_value_minor bigint CHECK (contract_value_minor >= 0),
      signers jsonb NOT NULL DEFAULT '[]',
      archived boolean NOT NULL DEFAULT false,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK (effective_date IS NULL OR expiration_date IS NULL OR effective_date <= expiration_date),
      CHECK (archived = (archived_at IS NOT NULL)),
      CONSTRAINT contracts_number_unique UNIQUE (organization_id, contract_number),
      CONSTRAINT contracts_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT contracts_billing_contact_fk FOREIGN KEY (organization_id, billing_contact_id) REFERENCES contacts (organization_id, id),
      CONSTRAINT contracts_project_fk FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id)
    );
    CREATE INDEX contracts_list ON contracts (organization_id, created_at DESC, id DESC);
    CREATE INDEX contracts_list_client ON contracts (organization_id, client_id, created_at DESC, id DESC);
    CREATE INDEX contracts_list_project ON contracts (organization_id, project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL;
    CREATE INDEX contracts_list_status ON contracts (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX contracts_list_archived ON contracts (organization_id, archived, created_at DESC, id DESC);
    CREATE INDEX contracts_updated ON contracts (organization_id, updated_at);
    CREATE INDEX contracts_billing_contact ON contracts (organization_id, billing_contact_id) WHERE billing_contact_id IS NOT NULL;
  `)
