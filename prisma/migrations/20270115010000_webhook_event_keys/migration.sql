-- Issue 30 (30f): webhook events keep their own id and their resource's as `uuid` (16 bytes instead of ~50 as
-- text), in the row and in every index entry (primary key, by resource, by type, by delivery status).
-- The API still names an event `Webhook:<uuid>` and its resource `<Type>:<uuid>`:
--  - `id`: the event's uuid; `Webhook:` is put in front wherever an event is shown or sent
--    (src/domains/webhooks/webhooks.model.ts eventLabel) and taken off a request's id (eventKey).
--  - `resource_id`: svc_resource_key(data ->> 'id') (20270115000000), set by the insert trigger as before.
--    A payload still whole has its resource's id; one cut down by retention keeps it only when the event's type
--    does not give the resource's type (svc_event_resource_type below, webhooks.model.ts EVENT_RESOURCE_TYPES):
--    the events log puts `<type>:<resource_id>` back in front (eventPayload).
--  - `webhook_attempts.event_id` follows `id` (its foreign key is dropped and put back).
-- Each table is rewritten once under an exclusive lock: a maintenance window on a large database
-- (docs/deploy.md "Upgrading"). Citus: refused on a distributed database, as 20270114000000.
DO $$
DECLARE
  r record;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_dist_partition)' INTO r;
    IF r.exists THEN
      RAISE EXCEPTION 'webhook event keys as uuid: this database is distributed; undistribute its tables first (docs/deploy.md "Citus")';
    END IF;
  END IF;
END
$$;

-- The resource type an event's type names (the part before the first dot), where that is certain. Events of
-- other types keep their resource's id in a cut-down payload. IMMUTABLE (an UPDATE's SET on Citus, 29d).
-- webhooks.model.ts EVENT_RESOURCE_TYPES holds the same pairs (test/platform/webhooks.test.ts compares them).
CREATE FUNCTION svc_event_resource_type(event_type text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE split_part(event_type, '.', 1)
    WHEN 'OUTGOING_PAYMENT' THEN 'Transaction'
    WHEN 'INCOMING_PAYMENT' THEN 'Transaction'
    WHEN 'INTERNAL_ACCOUNT' THEN 'InternalAccount'
    WHEN 'EXTERNAL_ACCOUNT' THEN 'ExternalAccount'
    WHEN 'CUSTOMER' THEN 'Customer'
    WHEN 'CARD' THEN 'Card'
    WHEN 'CARD_TRANSACTION' THEN 'CardTransaction'
  END
$$;

-- What retention keeps of a payload (src/platform/retention.ts): the resource's status and type, and its id
-- only when the event's type and resource_id cannot give it back exactly.
DROP FUNCTION svc_pruned_payload(jsonb);
CREATE FUNCTION svc_pruned_payload(event_type text, data jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'id', CASE WHEN data ->> 'id' = svc_event_resource_type(event_type) || ':' || svc_resource_key(data ->> 'id')::text THEN NULL ELSE data -> 'id' END,
    'status', data -> 'status',
    'type', data -> 'type'))
$$;

-- Events cut down before (30c) hold their resource's id only in resource_id: where the type cannot give it
-- back, it goes back into the payload first.
UPDATE "webhook_events"
   SET "data" = jsonb_build_object('id', "resource_id") || "data"
 WHERE "pruned_at" IS NOT NULL AND "resource_id" IS NOT NULL AND NOT ("data" ? 'id')
   AND "resource_id" IS DISTINCT FROM svc_event_resource_type("type") || ':' || svc_resource_key("resource_id")::text;

DO $$
DECLARE
  r record;
BEGIN
  CREATE TEMP TABLE _svc_event_fks ON COMMIT DROP AS
    SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def
      FROM pg_constraint
     WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conparentid = 0 AND confrelid = 'webhook_events'::regclass;
  FOR r IN SELECT * FROM _svc_event_fks LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;

  ALTER TABLE "webhook_events"
    ALTER COLUMN "id" TYPE uuid USING svc_resource_key("id"),
    ALTER COLUMN "resource_id" TYPE uuid USING svc_resource_key("resource_id");
  ALTER TABLE "webhook_attempts" ALTER COLUMN "event_id" TYPE uuid USING svc_resource_key("event_id");

  FOR r IN SELECT * FROM _svc_event_fks LOOP
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.tbl, r.conname, r.def);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION svc_webhook_event_born() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NEW.resource_id := coalesce(svc_resource_key(NEW.data ->> 'id'), NEW.resource_id);
  IF NEW.relayed_at IS NULL AND NEW.delivery_status = 'PENDING'
     AND NOT EXISTS (SELECT 1 FROM platforms p WHERE p.id = NEW.platform_id AND p.webhook_endpoint IS NOT NULL) THEN
    NEW.delivery_status := 'UNDELIVERABLE';
    NEW.relayed_at := NEW.created_at;
    NEW.retry_window_started_at := NEW.created_at;
    NEW.next_attempt_at := NULL;
    NEW.last_error := 'WEBHOOK_ENDPOINT_NOT_SET';
  END IF;
  RETURN NEW;
END
$$;
