-- Issue 30 (30d): the payment tables' indexes at rest, without changing a query (docs/decisions.md, 30d).

-- 1. Time-window lists by (platform_id, created_at) alone: the page is still ordered by (created_at, id); the
--    index gives created_at's order and the few rows sharing one created_at (a statement's events, a
--    millisecond's payments) are put in id order by an Incremental Sort over the page, not a sort of the window.
--    Without the id in the key, B-tree deduplication keeps one key and a list of row pointers for the rows of
--    one timestamp: ~100 bytes an entry fewer.
DROP INDEX IF EXISTS "webhook_events_platform_id_created_at_id_idx";
CREATE INDEX IF NOT EXISTS "webhook_events_platform_id_created_at_idx" ON "webhook_events"("platform_id", "created_at") WITH (fillfactor = 100);
DROP INDEX IF EXISTS "transactions_platform_id_created_at_id_idx";
CREATE INDEX IF NOT EXISTS "transactions_platform_id_created_at_idx" ON "transactions"("platform_id", "created_at") WITH (fillfactor = 100);
DROP INDEX IF EXISTS "quotes_platform_id_created_at_id_idx";
CREATE INDEX IF NOT EXISTS "quotes_platform_id_created_at_idx" ON "quotes"("platform_id", "created_at") WITH (fillfactor = 100);

-- 2. Quotes by sending account without platform_id (as 30c did for customers and receiving accounts): a quote's
--    source is always one of the platform's internal accounts (globally unique ids), never a clearing account
--    shared by every platform (those are incoming payments' sources: transactions keep platform_id there).
DROP INDEX IF EXISTS "quotes_platform_id_source_account_id_id_idx";
CREATE INDEX IF NOT EXISTS "quotes_source_account_id_id_idx" ON "quotes"("source_account_id", "id") WITH (fillfactor = 100);

-- 3. Every other B-tree of the six payment tables fills its leaf pages to 100 % (it was 90 %, the default; the
--    ledger's and status changes' keys already were, 30b). Their keys end with a time-ordered id (UUIDv7), so
--    new entries arrive at the right end of their key range, where a page split leaves the left page as full
--    as the fill factor says; pages that are rewritten in the middle are the few rows whose status moves.
--    The partial indexes over due rows (pending, in flight, unrelayed, unpruned) keep 90 %: their rows come and go.
--    Applies to pages split from now on; `REINDEX INDEX CONCURRENTLY` (or pg_repack) packs the existing ones.
ALTER INDEX IF EXISTS "transactions_pkey" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_quote_id_key" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_status_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_type_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_sending_currency_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_receiving_currency_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_source_account_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_customer_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_customer_id_status_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_destination_account_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_own_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_own_status_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_platform_id_agent_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_rail_reference_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_refund_reference_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "transactions_created_at_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_pkey" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_platform_id_transaction_id_key" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_platform_id_status_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_customer_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_destination_account_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_platform_own_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "quotes_platform_id_destination_uma_address_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "webhook_events_pkey" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "webhook_events_platform_id_type_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "webhook_events_resource_id_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "ledger_journals_platform_id_idempotency_key_key" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "ledger_journals_reference_id_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "ledger_entries_platform_id_account_currency_idx" SET (fillfactor = 100);
ALTER INDEX IF EXISTS "status_changes_resource_id_idx" SET (fillfactor = 100);
