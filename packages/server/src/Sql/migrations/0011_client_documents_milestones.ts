import { runScript } from "../Script.js"

/**
 * Client documents (smart-files) and milestones (issue 16).
 *
 * Client documents arrive through the operator import, upserted by their externalId. Templates are stored
 * but are no part of the API: the API reads the view `client_document_rows`, which leaves them out (and the
 * externalId, which the resource does not have), so no query can forget to. Their links are composite
 * foreign keys, so a client, contact or project a document names cannot be deleted under it (409).
 *
 * A milestone's parent is polymorphic (`parent_type`, `parent_id`). Two generated columns split it by type
 * and carry the foreign keys: the parent is a record of the organization, and a project with milestones
 * cannot be deleted (record_has_dependents). Amounts in integer minor units; completed_at is set exactly
 * when the status is completed.
 */
export default runScript(`
    CREATE TABLE client_documents (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      external_id text NOT NULL,
      kind text NOT NULL DEFAULT 'smart-file' CHECK (kind = 'smart-file'),
      title text,
      status text NOT NULL CHECK (status IN ('draft', 'sent', 'viewed', 'in_progress', 'accepted', 'completed', 'expired', 'void')),
      contact_id uuid,
      client_id uuid,
      project_id uuid,
      engagement_project_id uuid,
      is_template boolean NOT NULL DEFAULT false,
      client_url text,
      quote_converted_at timestamptz,
      expires_at timestamptz,
      archived_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CONSTRAINT client_documents_external_id_unique UNIQUE (organization_id, external_id),
      CONSTRAINT client_documents_contact_fk FOREIGN KEY (organization_id, contact_id) REFERENCES contacts (organization_id, id),
      CONSTRAINT client_documents_client_fk FOREIGN KEY (organization_id, client_id) REFERENCES clients (organization_id, id),
      CONSTRAINT client_documents_project_fk FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id),
      CONSTRAINT client_documents_engagement_project_fk FOREIGN KEY (organization_id, engagement_project_id)
        REFERENCES projects (organization_id, id)
    );
    -- The API's lists (templates never match, so the indexes leave them out).
    CREATE INDEX client_documents_list ON client_documents (organization_id, created_at DESC, id DESC) WHERE NOT is_template;
    CREATE INDEX client_documents_list_status ON client_documents (organization_id, status, created_at DESC, id DESC) WHERE NOT is_template;
    CREATE INDEX client_documents_updated ON client_documents (organization_id, updated_at) WHERE NOT is_template;
    -- By link: the list filters, and the foreign-key checks when a client, contact or project is deleted.
    CREATE INDEX client_documents_client ON client_documents (organization_id, client_id, created_at DESC, id DESC) WHERE client_id IS NOT NULL;
    CREATE INDEX client_documents_project ON client_documents (organization_id, project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL;
    CREATE INDEX client_documents_contact ON client_documents (organization_id, contact_id) WHERE contact_id IS NOT NULL;
    CREATE INDEX client_documents_engagement_project ON client_documents (organization_id, engagement_project_id)
      WHERE engagement_project_id IS NOT NULL;

    -- What the API reads: documents only, never a template, and without the import's externalId.
    CREATE VIEW client_document_rows AS
      SELECT id, organization_id, kind, title, status, contact_id, client_id, project_id, engagement_project_id, is_template,
        client_url, quote_converted_at, expires_at, archived_at, created_at, updated_at
      FROM client_documents
      WHERE NOT is_template;

    CREATE TABLE milestones (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      parent_type text NOT NULL CHECK (parent_type IN ('projects', 'client-documents')),
      parent_id uuid NOT NULL,
      project_id uuid GENERATED ALWAYS AS (CASE WHEN parent_type = 'projects' THEN parent_id END) STORED,
      client_document_id uuid GENERATED ALWAYS AS (CASE WHEN parent_type = 'client-documents' THEN parent_id END) STORED,
      title text NOT NULL,
      description text,
      due_date date,
      amount_minor bigint CHECK (amount_minor >= 0),
      status text NOT NULL CHECK (status IN ('pending', 'completed')),
      completed_at timestamptz,
      sort_order integer NOT NULL CHECK (sort_order >= 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
      CONSTRAINT milestones_project_fk FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id),
      CONSTRAINT milestones_client_document_fk FOREIGN KEY (organization_id, client_document_id)
        REFERENCES client_documents (organization_id, id)
    );
    CREATE INDEX milestones_list ON milestones (organization_id, created_at DESC, id DESC);
    CREATE INDEX milestones_list_status ON milestones (organization_id, status, created_at DESC, id DESC);
    -- A parent's milestones in their order (the list with parentId), and its largest sortOrder.
    CREATE INDEX milestones_parent ON milestones (organization_id, parent_id, sort_order, created_at, id);
    CREATE INDEX milestones_updated ON milestones (organization_id, updated_at);
    -- The foreign-key checks when a project or a client document is deleted.
    CREATE INDEX milestones_project ON milestones (organization_id, project_id) WHERE project_id IS NOT NULL;
    CREATE INDEX milestones_client_document ON milestones (organization_id, client_document_id) WHERE client_document_id IS NOT NULL;
  `)
