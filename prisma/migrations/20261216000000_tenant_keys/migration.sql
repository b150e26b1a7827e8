-- Issue 29: keys that name the tenant. Every primary key, unique index and foreign key of a tenant table
-- (one with platform_id) includes platform_id, and no foreign key cascades on update: what Citus needs to
-- distribute these tables by platform_id (and PostgreSQL to hash-partition them by it). Plain PostgreSQL
-- keeps working: ids stay globally unique (they are random), the keys just lead with the platform.
-- Values looked up before the platform is known (client ids, tokens, codes, provider references) stay
-- globally unique through tenant_lookups, written by a trigger in the same transaction as their row.
-- test/platform/tenant-keys.test.ts is the lint that keeps it so.

-- 1-3. Computed from the catalog, not listed, so that tables and foreign keys added by migrations that sort
-- before this one are brought under the same rules: every foreign key of a tenant table is dropped; every
-- tenant table's primary key gets platform_id in front; the foreign keys come back without ON UPDATE CASCADE
-- (same ON DELETE), and those between tenant tables as (platform_id, …) → (platform_id, …).
DO $$
DECLARE
  tenant text[] := ARRAY(
    SELECT c.relname::text FROM pg_class c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'platform_id' AND NOT a.attisdropped
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
       -- A credit a collection provider reported is found by the provider's credit id before (or without:
       -- an unmatched credit has none) its platform is known: a global lookup table (tenant-keys.test.ts).
       AND c.relname <> 'collection_credits');
  fks jsonb;
  fk jsonb;
  pk record;
  cols text[];
  refcols text[];
BEGIN
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'tbl', c.conrelid::regclass::text, 'name', c.conname, 'ref', c.confrelid::regclass::text, 'del', c.confdeltype,
           'cols', (SELECT jsonb_agg(a.attname ORDER BY k.o) FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
           'refcols', (SELECT jsonb_agg(a.attname ORDER BY k.o) FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n))
           ORDER BY c.conrelid::regclass::text, c.conname), '[]')
    INTO fks
    FROM pg_constraint c
   WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace AND c.conrelid::regclass::text = ANY(tenant);
  FOR fk IN SELECT * FROM jsonb_array_elements(fks) LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', fk->>'tbl', fk->>'name');
  END LOOP;
  FOR pk IN
    SELECT t.relname::text AS tbl, k.conname::text AS name,
           ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o) AS cols
      FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid
     WHERE k.contype = 'p' AND t.relname::text = ANY(tenant)
  LOOP
    CONTINUE WHEN 'platform_id' = ANY(pk.cols);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I PRIMARY KEY (%s)', pk.tbl, pk.name, pk.name,
                   (SELECT string_agg(quote_ident(c), ', ') FROM unnest(ARRAY['platform_id'] || pk.cols) c));
  END LOOP;
  FOR fk IN SELECT * FROM jsonb_array_elements(fks) LOOP
    cols := ARRAY(SELECT jsonb_array_elements_text(fk->'cols'));
    refcols := ARRAY(SELECT jsonb_array_elements_text(fk->'refcols'));
    IF fk->>'ref' = ANY(tenant) AND NOT 'platform_id' = ANY(cols) THEN
      cols := ARRAY['platform_id'] || cols;
      refcols := ARRAY['platform_id'] || refcols;
      -- Named as Prisma names a relation's key (Postgres cuts a name at 63 bytes).
      fk := fk || jsonb_build_object('name', left(format('%s_%s_fkey', fk->>'tbl', array_to_string(cols, '_')), 63));
    END IF;
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (%s) REFERENCES %I(%s) ON DELETE %s ON UPDATE NO ACTION',
                   fk->>'tbl', fk->>'name',
                   (SELECT string_agg(quote_ident(c), ', ') FROM unnest(cols) c), fk->>'ref',
                   (SELECT string_agg(quote_ident(c), ', ') FROM unnest(refcols) c),
                   CASE fk->>'del' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' ELSE 'NO ACTION' END);
  END LOOP;
END
$$;

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
DROP INDEX "collection_coordinates_account_rail_key";
CREATE UNIQUE INDEX "collection_coordinates_account_rail_key" ON "collection_coordinates"("platform_id", "internal_account_id", "rail");
DROP INDEX "collection_coordinates_adapter_reference_key";
CREATE UNIQUE INDEX "collection_coordinates_adapter_reference_key" ON "collection_coordinates"("platform_id", "adapter_id", "reference");

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
CREATE TRIGGER "collection_coordinates_lookup" AFTER INSERT OR UPDATE OF "adapter_id", "reference" OR DELETE ON "collection_coordinates"
  FOR EACH ROW EXECUTE FUNCTION svc_tenant_lookup('COLLECTION_REFERENCE', 'adapter_id', 'reference');

INSERT INTO tenant_lookups (kind, value, platform_id)
  SELECT 'PLATFORM_CLIENT_ID', client_id, platform_id FROM platform_credentials
  UNION ALL SELECT 'KYC_LINK_TOKEN', token_hash, platform_id FROM kyc_links
  UNION ALL SELECT 'AGENT_DEVICE_CODE', code_hash, platform_id FROM agent_device_codes
  UNION ALL SELECT 'AGENT_ACCESS_TOKEN', access_token_hash, platform_id FROM agent_device_codes WHERE access_token_hash IS NOT NULL
  UNION ALL SELECT 'UMA_INVITATION_CODE', code, platform_id FROM uma_invitations
  UNION ALL SELECT 'BANK_LINK_TOKEN', link_token, platform_id FROM bank_links
  UNION ALL SELECT 'SCA_RESET_TOKEN', token_hash, platform_id FROM sca_factor_resets
  UNION ALL SELECT 'CARD_PROCESSOR_REF', issuer_adapter || chr(31) || processor_ref, platform_id FROM cards WHERE processor_ref IS NOT NULL
  UNION ALL SELECT 'STABLECOIN_PROVIDER_OPERATION', provider || chr(31) || provider_operation_id, platform_id FROM stablecoin_operations WHERE provider_operation_id IS NOT NULL
  UNION ALL SELECT 'COLLECTION_REFERENCE', adapter_id || chr(31) || reference, platform_id FROM collection_coordinates WHERE reference IS NOT NULL;

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
