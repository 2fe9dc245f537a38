import { runScript } from "../Script.js"

/**
 * The organization's settings that `npm run admin -- org update` writes (contract, "Records that arrive from
 * outside the API"): its currency (USD until set; the default of every money record it creates), its default
 * tax rate (a client without its own rate is taxed at it; 0 until set) and its owner's email (the address of
 * the owner alerts). Existing organizations keep what they had: USD and 0.
 */
export default runScript(`
    ALTER TABLE organizations
      ADD COLUMN currency text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
      ADD COLUMN default_tax_rate numeric(7, 4) NOT NULL DEFAULT 0 CHECK (default_tax_rate BETWEEN 0 AND 100),
      ADD COLUMN owner_email text,
      ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
  `)
