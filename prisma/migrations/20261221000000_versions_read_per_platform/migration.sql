-- Issue 29 (29b): the batched version read of GET /transactions/{id} (transactions.repo.ts) reads one
-- platform's rows per statement (keyedReads batches per platform) and names the platform with a plain
-- `platform_id = platform`. Its plan is made once per connection for any values (force_generic_plan): there
-- `platform_id = ANY(platforms)` of an array parameter is not pruned by PostgreSQL (the partitioned rehearsal,
-- test/platform/partition-pruning.test.ts, saw it scan every partition), `= platform` is pruned when the
-- plan starts; on Citus a scalar platform argument is also what delegating the function to the platform's
-- worker needs.
DROP FUNCTION svc_transaction_versions(text[], text[]);

CREATE OR REPLACE FUNCTION svc_transaction_versions(ids text[], platform text)
  RETURNS TABLE (id text, platform_id text, customer_id text, version text)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  RETURN QUERY
    SELECT t."id", t."platform_id", t."customer_id", t.xmin::text
    FROM "transactions" t
    WHERE t."platform_id" = platform AND t."id" = ANY(ids);
END
$$;
