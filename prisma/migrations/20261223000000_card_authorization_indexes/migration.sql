-- Issue 27 (27c): every card authorization inserts a card_transactions row and two webhook_events rows;
-- each carried an index on (platform_id, id) that repeats its primary key exactly since the tenant keys
-- (20261216000000_tenant_keys made (platform_id, id) the primary key). One index insert per row less,
-- nothing read differently (the primary key serves the same lookups).
DROP INDEX IF EXISTS "card_transactions_platform_id_id_idx";
DROP INDEX IF EXISTS "webhook_events_platform_id_id_idx";
