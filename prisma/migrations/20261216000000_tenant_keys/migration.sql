-- Issue 29: keys that name the tenant. Every primary key, unique index and foreign key of a tenant table
-- (one with platform_id) includes platform_id, and no foreign key cascades on update: what Citus needs to
-- distribute these tables by platform_id (and PostgreSQL to hash-partition them by it). Plain PostgreSQL
-- keeps working: ids stay globally unique (they are random), the keys just lead with the platform.
-- Values looked up before the platform is known (client ids, tokens, codes, provider references) stay
-- globally unique through tenant_lookups, written by a trigger in the same transaction as their row.
-- test/platform/tenant-keys.test.ts is the lint that keeps it so.

-- 1. Foreign keys: dropped, re-made below as composite (platform_id, …) and without ON UPDATE CASCADE.
ALTER TABLE "agent_device_codes" DROP CONSTRAINT "agent_device_codes_agent_id_fkey";
ALTER TABLE "beneficial_owners" DROP CONSTRAINT "beneficial_owners_customer_id_fkey";
ALTER TABLE "contact_verification_codes" DROP CONSTRAINT "contact_verification_codes_customer_id_fkey";
ALTER TABLE "documents" DROP CONSTRAINT "documents_customer_id_fkey";
ALTER TABLE "external_account_challenges" DROP CONSTRAINT "external_account_challenges_external_account_id_fkey";
ALTER TABLE "fee_configs" DROP CONSTRAINT "fee_configs_platform_id_fkey";
ALTER TABLE "kyc_links" DROP CONSTRAINT "kyc_links_customer_id_fkey";
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_journal_id_fkey";
ALTER TABLE "platform_credentials" DROP CONSTRAINT "platform_credentials_platform_id_fkey";
ALTER TABLE "platform_currencies" DROP CONSTRAINT "platform_currencies_platform_id_fkey";
ALTER TABLE "stablecoin_operations" DROP CONSTRAINT "stablecoin_operations_stablecoin_id_fkey";
ALTER TABLE "stablecoins" DROP CONSTRAINT "stablecoins_stablecoin_provider_account_id_fkey";
ALTER TABLE "verifications" DROP CONSTRAINT "verifications_customer_id_fkey";
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_event_id_fkey";

-- 2. Primary keys of tenant tables lead with platform_id.
ALTER TABLE "agent_daily_usage" DROP CONSTRAINT "agent_daily_usage_pkey", ADD CONSTRAINT "agent_daily_usage_pkey" PRIMARY KEY ("platform_id", "agent_id", "day");
ALTER TABLE "agent_device_codes" DROP CONSTRAINT "agent_device_codes_pkey", ADD CONSTRAINT "agent_device_codes_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "agents" DROP CONSTRAINT "agents_pkey", ADD CONSTRAINT "agents_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "auth_challenges" DROP CONSTRAINT "auth_challenges_pkey", ADD CONSTRAINT "auth_challenges_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "auth_credentials" DROP CONSTRAINT "auth_credentials_pkey", ADD CONSTRAINT "auth_credentials_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "auth_sessions" DROP CONSTRAINT "auth_sessions_pkey", ADD CONSTRAINT "auth_sessions_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "bank_links" DROP CONSTRAINT "bank_links_pkey", ADD CONSTRAINT "bank_links_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "beneficial_owners" DROP CONSTRAINT "beneficial_owners_pkey", ADD CONSTRAINT "beneficial_owners_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "bulk_customer_imports" DROP CONSTRAINT "bulk_customer_imports_pkey", ADD CONSTRAINT "bulk_customer_imports_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "card_events" DROP CONSTRAINT "card_events_pkey", ADD CONSTRAINT "card_events_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "card_reveals" DROP CONSTRAINT "card_reveals_pkey", ADD CONSTRAINT "card_reveals_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "card_transactions" DROP CONSTRAINT "card_transactions_pkey", ADD CONSTRAINT "card_transactions_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "cards" DROP CONSTRAINT "cards_pkey", ADD CONSTRAINT "cards_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "customers" DROP CONSTRAINT "customers_pkey", ADD CONSTRAINT "customers_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "delegated_keys" DROP CONSTRAINT "delegated_keys_pkey", ADD CONSTRAINT "delegated_keys_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "deposits" DROP CONSTRAINT "deposits_pkey", ADD CONSTRAINT "deposits_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "documents" DROP CONSTRAINT "documents_pkey", ADD CONSTRAINT "documents_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "embedded_wallets" DROP CONSTRAINT "embedded_wallets_pkey", ADD CONSTRAINT "embedded_wallets_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "external_account_challenges" DROP CONSTRAINT "external_account_challenges_pkey", ADD CONSTRAINT "external_account_challenges_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "external_accounts" DROP CONSTRAINT "external_accounts_pkey", ADD CONSTRAINT "external_accounts_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "fee_configs" DROP CONSTRAINT "fee_configs_pkey", ADD CONSTRAINT "fee_configs_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "funding_instructions" DROP CONSTRAINT "funding_instructions_pkey", ADD CONSTRAINT "funding_instructions_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "internal_accounts" DROP CONSTRAINT "internal_accounts_pkey", ADD CONSTRAINT "internal_accounts_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "kyc_links" DROP CONSTRAINT "kyc_links_pkey", ADD CONSTRAINT "kyc_links_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_pkey", ADD CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "ledger_journals" DROP CONSTRAINT "ledger_journals_pkey", ADD CONSTRAINT "ledger_journals_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "platform_credentials" DROP CONSTRAINT "platform_credentials_pkey", ADD CONSTRAINT "platform_credentials_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "quotes" DROP CONSTRAINT "quotes_pkey", ADD CONSTRAINT "quotes_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "sandbox_custody_secrets" DROP CONSTRAINT "sandbox_custody_secrets_pkey", ADD CONSTRAINT "sandbox_custody_secrets_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "sca_challenges" DROP CONSTRAINT "sca_challenges_pkey", ADD CONSTRAINT "sca_challenges_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "sca_factor_resets" DROP CONSTRAINT "sca_factor_resets_pkey", ADD CONSTRAINT "sca_factor_resets_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "sca_factors" DROP CONSTRAINT "sca_factors_pkey", ADD CONSTRAINT "sca_factors_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "sca_sessions" DROP CONSTRAINT "sca_sessions_pkey", ADD CONSTRAINT "sca_sessions_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "signed_requests" DROP CONSTRAINT "signed_requests_pkey", ADD CONSTRAINT "signed_requests_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "signing_credentials" DROP CONSTRAINT "signing_credentials_pkey", ADD CONSTRAINT "signing_credentials_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "stablecoin_operations" DROP CONSTRAINT "stablecoin_operations_pkey", ADD CONSTRAINT "stablecoin_operations_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "stablecoin_provider_accounts" DROP CONSTRAINT "stablecoin_provider_accounts_pkey", ADD CONSTRAINT "stablecoin_provider_accounts_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "stablecoins" DROP CONSTRAINT "stablecoins_pkey", ADD CONSTRAINT "stablecoins_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "status_changes" DROP CONSTRAINT "status_changes_pkey", ADD CONSTRAINT "status_changes_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_pkey", ADD CONSTRAINT "transactions_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "uma_invitations" DROP CONSTRAINT "uma_invitations_pkey", ADD CONSTRAINT "uma_invitations_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "uma_lookups" DROP CONSTRAINT "uma_lookups_pkey", ADD CONSTRAINT "uma_lookups_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "verifications" DROP CONSTRAINT "verifications_pkey", ADD CONSTRAINT "verifications_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey", ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("platform_id", "id");
ALTER TABLE "webhook_events" DROP CONSTRAINT "webhook_events_pkey", ADD CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("platform_id", "id");

-- 3. Foreign keys again.
ALTER TABLE "agent_device_codes" ADD CONSTRAINT "agent_device_codes_platform_id_agent_id_fkey" FOREIGN KEY ("platform_id", "agent_id") REFERENCES "agents"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "beneficial_owners" ADD CONSTRAINT "beneficial_owners_platform_id_customer_id_fkey" FOREIGN KEY ("platform_id", "customer_id") REFERENCES "customers"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "contact_verification_codes" ADD CONSTRAINT "contact_verification_codes_platform_id_customer_id_fkey" FOREIGN KEY ("platform_id", "customer_id") REFERENCES "customers"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "documents" ADD CONSTRAINT "documents_platform_id_customer_id_fkey" FOREIGN KEY ("platform_id", "customer_id") REFERENCES "customers"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "external_account_challenges" ADD CONSTRAINT "external_account_challenges_account_fkey" FOREIGN KEY ("platform_id", "external_account_id") REFERENCES "external_accounts"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "fee_configs" ADD CONSTRAINT "fee_configs_platform_id_fkey" FOREIGN KEY ("platform_id") REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "kyc_links" ADD CONSTRAINT "kyc_links_platform_id_customer_id_fkey" FOREIGN KEY ("platform_id", "customer_id") REFERENCES "customers"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_platform_id_journal_id_fkey" FOREIGN KEY ("platform_id", "journal_id") REFERENCES "ledger_journals"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "platform_credentials" ADD CONSTRAINT "platform_credentials_platform_id_fkey" FOREIGN KEY ("platform_id") REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "platform_currencies" ADD CONSTRAINT "platform_currencies_platform_id_fkey" FOREIGN KEY ("platform_id") REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "stablecoin_operations" ADD CONSTRAINT "stablecoin_operations_platform_id_stablecoin_id_fkey" FOREIGN KEY ("platform_id", "stablecoin_id") REFERENCES "stablecoins"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "stablecoins" ADD CONSTRAINT "stablecoins_platform_id_stablecoin_provider_account_id_fkey" FOREIGN KEY ("platform_id", "stablecoin_provider_account_id") REFERENCES "stablecoin_provider_accounts"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "verifications" ADD CONSTRAINT "verifications_platform_id_customer_id_fkey" FOREIGN KEY ("platform_id", "customer_id") REFERENCES "customers"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_platform_id_event_id_fkey" FOREIGN KEY ("platform_id", "event_id") REFERENCES "webhook_events"("platform_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- 4. Uniques of tenant tables lead with platform_id.
DROP INDEX "quotes_transaction_id_key";
CREATE UNIQUE INDEX "quotes_platform_id_transaction_id_key" ON "quotes"("platform_id", "transaction_id");
DROP INDEX "transactions_quote_id_key";
CREATE UNIQUE INDEX "transactions_platform_id_quote_id_key" ON "transactions"("platform_id", "quote_id");
DROP INDEX "external_account_challenges_outstanding_key";
CREATE UNIQUE INDEX "external_account_challenges_outstanding_key" ON "external_account_challenges"("platform_id", "external_account_id", "purpose") WHERE "status" = 'OUTSTANDING';
DROP INDEX "stablecoin_operations_provider_ref_key";
CREATE UNIQUE INDEX "stablecoin_operations_provider_ref_key" ON "stablecoin_operations"("platform_id", "provider", "provider_operation_id");
DROP INDEX "cards_processor_ref_key";
CREATE UNIQUE INDEX "cards_processor_ref_key" ON "cards"("platform_id", "issuer_adapter", "processor_ref") WHERE "processor_ref" IS NOT NULL;
DROP INDEX "platform_credentials_client_id_key";
CREATE UNIQUE INDEX "platform_credentials_platform_id_client_id_key" ON "platform_credentials"("platform_id", "client_id");
DROP INDEX "kyc_links_token_hash_key";
CREATE UNIQUE INDEX "kyc_links_platform_id_token_hash_key" ON "kyc_links"("platform_id", "token_hash");
DROP INDEX "agent_device_codes_code_hash_key";
CREATE UNIQUE INDEX "agent_device_codes_platform_id_code_hash_key" ON "agent_device_codes"("platform_id", "code_hash");
DROP INDEX "agent_device_codes_access_token_hash_key";
CREATE UNIQUE INDEX "agent_device_codes_platform_id_access_token_hash_key" ON "agent_device_codes"("platform_id", "access_token_hash");
DROP INDEX "uma_invitations_code_key";
CREATE UNIQUE INDEX "uma_invitations_platform_id_code_key" ON "uma_invitations"("platform_id", "code");
DROP INDEX "bank_links_link_token_key";
CREATE UNIQUE INDEX "bank_links_platform_id_link_token_key" ON "bank_links"("platform_id", "link_token");
DROP INDEX "sca_factor_resets_token_hash_key";
CREATE UNIQUE INDEX "sca_factor_resets_platform_id_token_hash_key" ON "sca_factor_resets"("platform_id", "token_hash");

-- 5. The global lookups: kind + value → platform. Platform-wide by its own key (on Citus: distributed by
-- value, or a reference table), so a token stays unique across platforms and the platform is found
-- with one keyed read before any tenant table is touched.
CREATE TABLE "tenant_lookups" (
    "kind" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "platform_id" TEXT NOT NULL,
    CONSTRAINT "tenant_lookups_pkey" PRIMARY KEY ("kind", "value")
);

-- The lookup value of a row: the columns its trigger names after the kind (TG_ARGV, whose first index is 0)
-- joined by U+001F (src/platform/tenant-lookups.ts joins them the same way), or NULL when one is NULL (no
-- lookup for a row without, e.g., a token yet).
CREATE FUNCTION svc_tenant_lookup_value(r jsonb, args text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN bool_or(r ->> c IS NULL) THEN NULL ELSE string_agg(r ->> c, chr(31) ORDER BY o) END
    FROM unnest(args[array_lower(args, 1) + 1:]) WITH ORDINALITY AS a(c, o)
$$;

-- Keeps tenant_lookups in step with the row in the same transaction: a value taken by another row (of any
-- platform) fails the statement with a unique violation, as the tenant table's own unique index did.
CREATE FUNCTION svc_tenant_lookup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_value text;
  new_value text;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_value := svc_tenant_lookup_value(to_jsonb(OLD), TG_ARGV); END IF;
  IF TG_OP <> 'DELETE' THEN new_value := svc_tenant_lookup_value(to_jsonb(NEW), TG_ARGV); END IF;
  IF old_value IS NOT DISTINCT FROM new_value THEN RETURN NULL; END IF;
  IF old_value IS NOT NULL THEN
    DELETE FROM tenant_lookups WHERE kind = TG_ARGV[0] AND value = old_value;
  END IF;
  IF new_value IS NOT NULL THEN
    INSERT INTO tenant_lookups (kind, value, platform_id) VALUES (TG_ARGV[0], new_value, NEW.platform_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "platform_credentials_lookup" AFTER INSERT OR UPDATE OF "client_id" OR DELETE ON "platform_credentials"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('PLATFORM_CLIENT_ID', 'client_id');
CREATE TRIGGER "kyc_links_lookup" AFTER INSERT OR UPDATE OF "token_hash" OR DELETE ON "kyc_links"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('KYC_LINK_TOKEN', 'token_hash');
CREATE TRIGGER "agent_device_codes_code_lookup" AFTER INSERT OR UPDATE OF "code_hash" OR DELETE ON "agent_device_codes"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('AGENT_DEVICE_CODE', 'code_hash');
CREATE TRIGGER "agent_device_codes_token_lookup" AFTER INSERT OR UPDATE OF "access_token_hash" OR DELETE ON "agent_device_codes"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('AGENT_ACCESS_TOKEN', 'access_token_hash');
CREATE TRIGGER "uma_invitations_lookup" AFTER INSERT OR UPDATE OF "code" OR DELETE ON "uma_invitations"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('UMA_INVITATION_CODE', 'code');
CREATE TRIGGER "bank_links_lookup" AFTER INSERT OR UPDATE OF "link_token" OR DELETE ON "bank_links"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('BANK_LINK_TOKEN', 'link_token');
CREATE TRIGGER "sca_factor_resets_lookup" AFTER INSERT OR UPDATE OF "token_hash" OR DELETE ON "sca_factor_resets"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('SCA_RESET_TOKEN', 'token_hash');
CREATE TRIGGER "cards_lookup" AFTER INSERT OR UPDATE OF "issuer_adapter", "processor_ref" OR DELETE ON "cards"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('CARD_PROCESSOR_REF', 'issuer_adapter', 'processor_ref');
CREATE TRIGGER "stablecoin_operations_lookup" AFTER INSERT OR UPDATE OF "provider", "provider_operation_id" OR DELETE ON "stablecoin_operations"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('STABLECOIN_PROVIDER_OPERATION', 'provider', 'provider_operation_id');

INSERT INTO tenant_lookups (kind, value, platform_id)
  SELECT 'PLATFORM_CLIENT_ID', client_id, platform_id FROM platform_credentials
  UNION ALL SELECT 'KYC_LINK_TOKEN', token_hash, platform_id FROM kyc_links
  UNION ALL SELECT 'AGENT_DEVICE_CODE', code_hash, platform_id FROM agent_device_codes
  UNION ALL SELECT 'AGENT_ACCESS_TOKEN', access_token_hash, platform_id FROM agent_device_codes WHERE access_token_hash IS NOT NULL
  UNION ALL SELECT 'UMA_INVITATION_CODE', code, platform_id FROM uma_invitations
  UNION ALL SELECT 'BANK_LINK_TOKEN', link_token, platform_id FROM bank_links
  UNION ALL SELECT 'SCA_RESET_TOKEN', token_hash, platform_id FROM sca_factor_resets
  UNION ALL SELECT 'CARD_PROCESSOR_REF', issuer_adapter || chr(31) || processor_ref, platform_id FROM cards WHERE processor_ref IS NOT NULL
  UNION ALL SELECT 'STABLECOIN_PROVIDER_OPERATION', provider || chr(31) || provider_operation_id, platform_id FROM stablecoin_operations WHERE provider_operation_id IS NOT NULL;

-- 6. The batched version read (migration 20261128000000) names its platforms in a plain condition: the
-- primary key now leads with platform_id, and a planner prunes partitions and shards on it.
CREATE OR REPLACE FUNCTION svc_transaction_versions(ids text[], platforms text[])
  RETURNS TABLE (id text, platform_id text, customer_id text, version text)
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  RETURN QUERY
    SELECT t."id", t."platform_id", t."customer_id", t.xmin::text
    FROM "transactions" t
    WHERE t."platform_id" = ANY(platforms) AND t."id" = ANY(ids);
END
$$;

-- 7. The ledger's balance check reads only the rows its statement inserted (the transition table): entries
-- are append-only (ledger_entries_append_only) and every statement must leave the journals it touched
-- balanced, so a journal balances in each currency iff each statement's own entries of it sum to zero.
-- No read of ledger_entries by journal (on Citus: no second shard lookup from a trigger).
CREATE OR REPLACE FUNCTION ledger_check_journals_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced text;
BEGIN
  SELECT n.journal_id INTO unbalanced
    FROM new_entries n
   GROUP BY n.journal_id, n.currency
  HAVING SUM(n.amount) <> 0
   LIMIT 1;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
