-- Issue 30 (30b): storage that follows the business. Bytes per payment measured by `npm run bench:growth`
-- (per table and per index); docs/deploy.md (anchor 30b) has the figures.

-- 1. Indexes that duplicate a primary key. Since 20261216000000_tenant_keys every primary key of a tenant
--    table is (platform_id, id): the (platform_id, id) indexes made before it for the lists' keyset order
--    are the same B-tree a second time (and (platform_id) alone is its prefix). The lists now walk the
--    primary key (test/platform/plans.test.ts). Every primary key and unique index is kept as it is.
DROP INDEX IF EXISTS "transactions_platform_id_id_idx";
DROP INDEX IF EXISTS "quotes_platform_id_id_idx";
DROP INDEX IF EXISTS "webhook_events_platform_id_id_idx";
DROP INDEX IF EXISTS "customers_platform_id_id_idx";
DROP INDEX IF EXISTS "external_accounts_platform_id_id_idx";
DROP INDEX IF EXISTS "agents_platform_id_id_idx";
DROP INDEX IF EXISTS "card_transactions_platform_id_id_idx";
DROP INDEX IF EXISTS "uma_invitations_platform_id_id_idx";
DROP INDEX IF EXISTS "bulk_customer_imports_platform_id_id_idx";
DROP INDEX IF EXISTS "stablecoins_platform_id_id_idx";
DROP INDEX IF EXISTS "stablecoin_provider_accounts_platform_id_id_idx";
DROP INDEX IF EXISTS "platform_credentials_platform_id_id_idx";
DROP INDEX IF EXISTS "platform_credentials_platform_id_idx";

-- 2. Narrower keys where the leading platform_id buys nothing: the value looked up names one resource of
--    one platform (ids are random and globally unique), the few rows found are checked against the platform.
--    Non-unique indexes only (the tenant-keys rule is about primary keys and uniques); Citus keeps a
--    non-unique index per shard whatever its columns.
--    - status_changes: a resource's history (its id, then time); the machine is implied by the id's kind.
DROP INDEX IF EXISTS "status_changes_platform_id_machine_resource_id_created_at_idx";
CREATE INDEX "status_changes_resource_id_created_at_idx" ON "status_changes"("resource_id", "created_at");
--    - ledger_journals: a payment's (or account's, card transaction's) journals by its id.
DROP INDEX IF EXISTS "ledger_journals_platform_id_reference_id_idx";
CREATE INDEX "ledger_journals_reference_id_idx" ON "ledger_journals"("reference_id");
--    (ledger_entries by (platform_id, account, currency) stays: B-tree deduplication already stores an
--    account's entries as one key and a list of row pointers, ~12 bytes an entry.)

-- 3. GET /quotes?receivingUmaAddress= (REF's quotes.list filter): the UMA address paid, as a column set
--    from the destination on insert (a quote's destination never changes), so the list has an index that
--    also gives its order, over the quotes that pay a UMA address only. A quote delivered to a local UMA
--    receiver (destination kind INTERNAL) pays that address too and is listed with it.
ALTER TABLE "quotes" ADD COLUMN "destination_uma_address" TEXT;
UPDATE "quotes" SET "destination_uma_address" = "destination" ->> 'umaAddress' WHERE "destination" ? 'umaAddress';
CREATE FUNCTION svc_quote_born() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.destination_uma_address := NEW.destination ->> 'umaAddress';
  RETURN NEW;
END
$$;
CREATE TRIGGER "quotes_born" BEFORE INSERT ON "quotes" FOR EACH ROW EXECUTE FUNCTION svc_quote_born();
CREATE INDEX "quotes_platform_id_destination_uma_address_id_idx" ON "quotes"("platform_id", "destination_uma_address", "id")
  WHERE "destination_uma_address" IS NOT NULL;

-- 4. Append-only tables whose keys arrive in order (UUIDv7 ids, journal ids, times): their index pages are
--    never written again once full, so they are filled to 100 % instead of B-tree's default 90 % (a page
--    split at the right end leaves the left page as full as the fill factor). Takes effect as pages split;
--    a REINDEX (or pg_repack) applies it to existing pages.
ALTER INDEX "ledger_entries_pkey" SET (fillfactor = 100);
ALTER INDEX "ledger_entries_journal_id_idx" SET (fillfactor = 100);
ALTER INDEX "ledger_journals_pkey" SET (fillfactor = 100);
ALTER INDEX "ledger_journals_created_at_idx" SET (fillfactor = 100);
ALTER INDEX "status_changes_pkey" SET (fillfactor = 100);
