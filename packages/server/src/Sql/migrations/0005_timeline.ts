import { runScript } from "../Script.js"

/**
 * Event days and their timeline items. An item's times are never stored: the cascade of the domain
 * computes them on every read. sort_order is dense (0..n-1) per day, unique, and deferrable so that one
 * statement can renumber a day.
 */
export default runScript(`
    CREATE TABLE event_days (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      project_id uuid,
      date date NOT NULL,
      time_zone text NOT NULL,
      start_time text NOT NULL CHECK (start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      key_moments jsonb NOT NULL DEFAULT '{}',
      venue_name text,
      venue_latitude double precision CHECK (venue_latitude BETWEEN -90 AND 90),
      venue_longitude double precision CHECK (venue_longitude BETWEEN -180 AND 180),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((venue_latitude IS NULL) = (venue_longitude IS NULL)),
      CONSTRAINT event_days_project_fk FOREIGN KEY (organization_id, project_id) REFERENCES projects (organization_id, id)
    );
    CREATE INDEX event_days_list ON event_days (organization_id, created_at DESC, id DESC);
    CREATE INDEX event_days_list_project ON event_days (organization_id, project_id, created_at DESC, id DESC);
    CREATE INDEX event_days_updated ON event_days (organization_id, updated_at);

    CREATE TABLE timeline_items (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      event_day_id uuid NOT NULL,
      title text NOT NULL,
      description text,
      category_id uuid,
      sort_order integer NOT NULL CHECK (sort_order >= 0),
      track_id text,
      requested_start_time text CHECK (requested_start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 1 AND 1440),
      buffer_before_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_before_minutes BETWEEN 0 AND 1440),
      buffer_after_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_after_minutes BETWEEN 0 AND 1440),
      travel_time_minutes integer NOT NULL DEFAULT 0 CHECK (travel_time_minutes BETWEEN 0 AND 1440),
      locked boolean NOT NULL DEFAULT false,
      anchor_type text NOT NULL CHECK (anchor_type IN ('float', 'fixed', 'key-moment', 'golden-hour', 'none')),
      anchor_key text,
      location text,
      visible_to text[] NOT NULL,
      vendor_ids uuid[] NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'in-progress', 'completed', 'skipped')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, id),
      CHECK ((anchor_type = 'fixed') = (requested_start_time IS NOT NULL)),
      CONSTRAINT timeline_items_order UNIQUE (event_day_id, sort_order) DEFERRABLE INITIALLY IMMEDIATE,
      CONSTRAINT timeline_items_event_day_fk FOREIGN KEY (organization_id, event_day_id) REFERENCES event_days (organization_id, id)
    );
    CREATE INDEX timeline_items_day ON timeline_items (organization_id, event_day_id, sort_order);
    CREATE INDEX timeline_items_updated ON timeline_items (organization_id, updated_at);

    -- What the API lists: an item with its day's date, for the order by day.
    CREATE VIEW timeline_item_rows AS
      SELECT i.*, d.date AS day_date FROM timeline_items i JOIN event_days d ON d.id = i.event_day_id;
  `)
