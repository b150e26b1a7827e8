-- Issue 12: the version read of GET /transactions/{id} (transactions.repo.ts readTransactionVersion),
-- batched: the id, platform, customer and version (xmin) of the transactions of these ids whose platform
-- is one of these (found by primary key only; the caller hands a row only to the key naming its own
-- platform). A prepared statement with array parameters was planned on every call: a plan for this
-- call's values sees the arrays' real length (a STABLE function around them is folded when Postgres
-- estimates), and for a batch smaller than the 10 elements the plan for any values assumes, that plan
-- always looks cheaper. Planning cost 0.12 ms of Postgres per batch, reading 0.03 ms. Here the query is
-- planned once per connection for any values (plan_cache_mode, set for this function's calls only) and
-- the plan kept until the table's statistics change.
CREATE FUNCTION svc_transaction_versions(ids text[], platforms text[])
  RETURNS TABLE (id text, platform_id text, customer_id text, version text)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  RETURN QUERY
    SELECT t."id", t."platform_id", t."customer_id", t.xmin::text
    FROM "transactions" t
    WHERE t."id" = ANY(ids) AND (t."platform_id" = ANY(platforms)) IS TRUE;
END
$$;
