import { runScript } from "../Script.js"

/**
 * Sales (issue 15) with their number series, line items and books entries, and payouts. Both are read-only over the API
 * and arrive through the operator import. Money in integer minor units (bigint) of the record's currency,
 * as invoices and payments; rates and percents as numeric. A sale's totals and a payout's totals are
 * nullable: null is unknown, never 0, and nothing here gives them a default. Payments get the composite
 * foreign keys of the sale they settle and the payout that paid them out (no code wrote either column
 * before this migration, so every existing row has them null).
 */
export default runScript(`
    CREATE TABLE sale_number_series (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id),
      last_number integer NOT NULL CHECK (last_number > 0)
    );

    CREATE TABLE sales (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      sale_number text NOT NULL,
      business_id uuid,
      client_id uuid,
      contact_id uuid,
      channel text NOT NULL CHECK (channel IN ('pos', 'manual', 'processor', 'storefront', 'marketplace', 'processor-import', 'api')),
      external_id text,
      sale_date date NOT NULL,
      currency text NOT NULL,
      status text NOT NULL CHECK (status IN ('completed', 'refunded', 'partially-refunded', 'voided')),
      voided_at timestamptz,
      void_reason text,
      tax_jurisdiction text,
      tax_inclusive boolean NOT NULL,
      subtotal_minor bigint,
      discount_percent numeric(7, 4) CHECK (discount_percent BETWEEN 0 AND 100),
      discount_amount_minor bigint,
      tax_rate numeric(7, 4) CHECK (tax_rate BETWEEN 0 AND 100),
      tax_amount_minor bigint,
      total_minor bigint,
      amount_refunded_minor bigint NOT NULL DEFAULT 0 CHECK (amount_refunded_minor >= 0),
      notes text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((status = 'voided') = (voided_at IS NOT NULL)),
      CHECK (total_minor IS NULL OR amount_refunded_minor <= total_minor),
      CONSTRAINT sales_number_unique UNIQUE (organization_id, sale_number),
      CONSTRAINT sales_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT sales_contact_fk FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id),
      CONSTRAINT sales_business_fk FOREIGN KEY (organization_id, business_id) REFERENCES businesses (organization_id, id)
    );
    -- An import upserts by externalId: one sale per external id and organization.
    CREATE UNIQUE INDEX sales_external_id_unique ON sales (organization_id, external_id) WHERE external_id IS NOT NULL;
    CREATE INDEX sales_list ON sales (organization_id, created_at DESC, id DESC);
    CREATE INDEX sales_list_status ON sales (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX sales_list_client ON sales (organization_id, client_id, created_at DESC, id DESC) WHERE client_id IS NOT NULL;
    CREATE INDEX sales_list_business ON sales (organization_id, business_id, created_at DESC, id DESC) WHERE business_id IS NOT NULL;
    CREATE INDEX sales_sale_date ON sales (organization_id, sale_date);
    CREATE INDEX sales_contact ON sales (organization_id, contact_id) WHERE contact_id IS NOT NULL;
    CREATE INDEX sales_updated ON sales (organization_id, updated_at);

    -- What a sale sold, as its import gave it (the books and later imports read them; the API does not yet).
    CREATE TABLE sale_line_items (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      sale_id uuid NOT NULL,
      position smallint NOT NULL CHECK (position >= 0),
      description text NOT NULL,
      quantity numeric NOT NULL CHECK (quantity > 0),
      unit_price_minor bigint NOT NULL CHECK (unit_price_minor >= 0),
      total_minor bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (sale_id, position),
      CONSTRAINT sale_line_items_sale_fk FOREIGN KEY (organization_id, sale_id) REFERENCES sales (organization_id, id)
    );
    CREATE INDEX sale_line_items_sale ON sale_line_items (organization_id, sale_id, position);

    -- The books of sales (Books.ts): double entry in minor units, one row a line, never 0. A sale's lines,
    -- then each refund's and a void's reversal; \`payment_id\` is the sale's payment or the refund that
    -- caused the lines (null for a void). Written by the import and the sale commands, in their transaction.
    CREATE TABLE books_entries (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL,
      sale_id uuid NOT NULL,
      payment_id uuid,
      cause text NOT NULL CHECK (cause IN ('sale', 'refund', 'void')),
      account text NOT NULL CHECK (account IN ('cash', 'sales_revenue', 'sales_tax_payable')),
      side text NOT NULL CHECK (side IN ('debit', 'credit')),
      amount_minor bigint NOT NULL CHECK (amount_minor > 0),
      currency text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT books_entries_sale_fk FOREIGN KEY (organization_id, sale_id) REFERENCES sales (organization_id, id),
      CONSTRAINT books_entries_payment_fk FOREIGN KEY (organization_id, payment_id) REFERENCES payments (organization_id, id)
    );
    CREATE INDEX books_entries_sale ON books_entries (organization_id, sale_id, created_at);
    CREATE INDEX books_entries_payment ON books_entries (organization_id, payment_id) WHERE payment_id IS NOT NULL;

    CREATE TABLE payouts (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      processor_payout_id text NOT NULL,
      amount_minor bigint NOT NULL,
      currency text NOT NULL,
      arrival_date date,
      status text NOT NULL CHECK (status IN ('pending', 'in_transit', 'paid', 'failed', 'canceled')),
      type text NOT NULL,
      automatic boolean NOT NULL,
      description text,
      bank_account_last4 text CHECK (bank_account_last4 ~ '^[0-9]{4}$'),
      bank_account_name text,
      gross_total_minor bigint,
      fee_total_minor bigint,
      refund_total_minor bigint CHECK (refund_total_minor >= 0),
      dispute_total_minor bigint CHECK (dispute_total_minor >= 0),
      unattributed_total_minor bigint,
      payment_count integer CHECK (payment_count >= 0),
      last_reconciled_at timestamptz,
      failure_code text,
      failure_message text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      -- Not reconciled: nothing is known of the deposit's contents (null, never 0).
      CHECK (last_reconciled_at IS NOT NULL OR (gross_total_minor IS NULL AND fee_total_minor IS NULL AND refund_total_minor IS NULL
        AND dispute_total_minor IS NULL AND unattributed_total_minor IS NULL AND payment_count IS NULL)),
      -- unattributedTotal applies to manual payouts only.
      CHECK (NOT automatic OR unattributed_total_minor IS NULL),
      CONSTRAINT payouts_processor_id_unique UNIQUE (organization_id, processor_payout_id)
    );
    CREATE INDEX payouts_list ON payouts (organization_id, created_at DESC, id DESC);
    CREATE INDEX payouts_list_status ON payouts (organization_id, status, created_at DESC, id DESC);
    CREATE INDEX payouts_arrival_date ON payouts (organization_id, arrival_date);
    CREATE INDEX payouts_updated ON payouts (organization_id, updated_at);

    ALTER TABLE payments
      ADD CONSTRAINT payments_sale_fk FOREIGN KEY (organization_id, sale_id) REFERENCES sales (organization_id, id),
      ADD CONSTRAINT payments_payout_fk FOREIGN KEY (organization_id, payout_id) REFERENCES payouts (organization_id, id);
    CREATE INDEX payments_payout ON payments (organization_id, payout_id) WHERE payout_id IS NOT NULL;
  `)
