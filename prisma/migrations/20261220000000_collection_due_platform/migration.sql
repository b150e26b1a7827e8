-- Issue 29 item 2 (docs/decisions.md anchor 29a): the coordinates sweep's queue names its platform, so
-- the sweep takes it per platform group (`platform_id = ANY($1)`, one shard per statement on Citus) and
-- the table is a tenant table like the others (its key includes platform_id).
-- (collection_accounts_due got its platform_id in 20261217010000_collection_due_platform, issue 26c.)

-- Values a provider hands back before the platform is known, looked up through tenant_lookups like the
-- others (migration 20261216000000_tenant_keys, src/platform/tenant-lookups.ts): the liveness link's token
-- (its hash) of a wallet-ownership challenge, the KYC case id a provider reports an update for, and the
-- reference of a beneficiary check (the external account's id).
CREATE TRIGGER "external_account_challenges_lookup" AFTER INSERT OR UPDATE OF "secret_hash" OR DELETE ON "external_account_challenges"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('LIVENESS_TOKEN', 'secret_hash');
CREATE TRIGGER "verifications_lookup" AFTER INSERT OR DELETE ON "verifications"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('KYC_CASE', 'id');
CREATE TRIGGER "external_accounts_lookup" AFTER INSERT OR DELETE ON "external_accounts"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('EXTERNAL_ACCOUNT', 'id');
INSERT INTO tenant_lookups (kind, value, platform_id)
  SELECT 'LIVENESS_TOKEN', secret_hash, platform_id FROM external_account_challenges WHERE secret_hash IS NOT NULL
  UNION ALL SELECT 'KYC_CASE', id, platform_id FROM verifications
  UNION ALL SELECT 'EXTERNAL_ACCOUNT', id, platform_id FROM external_accounts
ON CONFLICT DO NOTHING;

-- The batched version read of one platform (src/domains/payments/transactions.repo.ts): its batches hold one
-- platform's keys (src/platform/raw-rows.ts keyedReads), named with a plain `platform_id = platform`. Its plan is
-- generic (kept per connection), and a generic plan prunes partitions on `= platform` at executor start-up but
-- not on `= ANY(platforms)` of an array parameter. The two-array form stays for processes not yet updated.
CREATE FUNCTION svc_transaction_versions(ids text[], platform text)
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
