-- Issue 30 (30e): `platform_id` (and `platforms.id`) stored as `uuid`, 16 bytes instead of `Platform:` + 36
-- characters (46 bytes) in every row and every index entry of the 61 tenant tables. The platform's id is
-- never shown to a platform; operators see and type `Platform:<uuid>` (src/platform/ids.ts `platformLabel`,
-- `platformUuid`), the code and the database hold the bare uuid.
--
-- Each table is rewritten once (ALTER COLUMN … TYPE), its indexes rebuilt. The foreign keys that name
-- platform_id are dropped first and put back unchanged after (both sides must change together).
-- A value that is not `Platform:<uuid>` or a bare uuid fails the migration (nothing is changed).
--
-- Citus: a distribution column's type cannot be altered. On a database already distributed the migration
-- refuses with a message; undistribute first (docs/deploy.md "Citus"). A fresh deployment is distributed
-- after its migrations, so it never meets this.
DO $$
DECLARE
  r record;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_dist_partition)' INTO r;
    IF r.exists THEN
      RAISE EXCEPTION 'platform_id as uuid: this database is distributed by platform_id; undistribute its tables first (docs/deploy.md "Citus")';
    END IF;
  END IF;

  CREATE TEMP TABLE _svc_fks ON COMMIT DROP AS
    SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def
      FROM pg_constraint
     WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conparentid = 0
       AND (confrelid = 'platforms'::regclass
            OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = conrelid AND a.attnum = ANY (conkey) AND a.attname = 'platform_id'));
  FOR r IN SELECT * FROM _svc_fks LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;

  ALTER TABLE "platforms" ALTER COLUMN "id" TYPE uuid
    USING (CASE WHEN "id" LIKE 'Platform:%' THEN substr("id", 10) ELSE "id" END)::uuid;
  FOR r IN
    SELECT c.relname
      FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'platform_id' AND NOT a.attisdropped
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND a.atttypid = 'text'::regtype
     ORDER BY 1
  LOOP
    EXECUTE format(
      'ALTER TABLE %I ALTER COLUMN "platform_id" TYPE uuid USING (CASE WHEN "platform_id" LIKE ''Platform:%%'' THEN substr("platform_id", 10) ELSE "platform_id" END)::uuid',
      r.relname);
  END LOOP;

  FOR r IN SELECT * FROM _svc_fks LOOP
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.tbl, r.conname, r.def);
  END LOOP;
END $$;

-- The one function whose signature names the platform (transactions.repo.ts VERSIONS_SQL).
DROP FUNCTION IF EXISTS svc_transaction_versions(text[], text);
CREATE FUNCTION svc_transaction_versions(ids text[], platform uuid)
  RETURNS TABLE (id text, platform_id uuid, customer_id text, version text)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET plan_cache_mode TO 'force_generic_plan'
AS $function$
BEGIN
  RETURN QUERY
    SELECT t."id", t."platform_id", t."customer_id", t.xmin::text
    FROM "transactions" t
    WHERE t."platform_id" = platform AND t."id" = ANY(ids);
END
$function$;
