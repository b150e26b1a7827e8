-- Issue 30 (30f): status changes' `resource_id` and ledger journals' `reference_id` stored as `uuid`: the
-- resource's key (svc_resource_key, migration 20270115000000_resource_key; src/platform/ids.ts resourceKey),
-- 16 bytes instead of `<Type>:` + 36 characters, in every row and in the entry of its index. Both columns
-- only find rows (a resource's history, a payment's journals); neither is ever shown.
--
-- Each table is rewritten once (ALTER COLUMN … TYPE) and its indexes rebuilt with their options (fillfactor).
-- A rewrite fires no row trigger: ledger_journals' append-only trigger (BEFORE UPDATE OR DELETE) lets it
-- through. No view, function or trigger reads either column.
--
-- The stablecoin enablement's history names the platform row: `Platform:<uuid>` before 20270114000000, its
-- bare uuid since. Both become the platform's uuid, the key of `Platform:<uuid>` (the state machine writes
-- the row's uuid itself).
--
-- Citus: on a database already distributed the migration refuses with a message; undistribute first
-- (docs/deploy.md "Citus"). A fresh deployment is distributed after its migrations, so it never meets this.
DO $$
DECLARE
  r record;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_dist_partition)' INTO r;
    IF r.exists THEN
      RAISE EXCEPTION 'status_changes.resource_id and ledger_journals.reference_id as uuid: this database is distributed; undistribute its tables first (docs/deploy.md "Citus")';
    END IF;
  END IF;
END $$;

ALTER TABLE "status_changes" ALTER COLUMN "resource_id" TYPE uuid
  USING svc_resource_key(CASE WHEN "machine" = 'stablecoin-enablement' AND "resource_id" NOT LIKE 'Platform:%' THEN 'Platform:' || "resource_id" ELSE "resource_id" END);

ALTER TABLE "ledger_journals" ALTER COLUMN "reference_id" TYPE uuid
  USING svc_resource_key("reference_id");
