-- Issue 30 (30f): the status history is pruned like the other tables that only grow. Retention
-- (src/platform/retention.ts) deletes status changes older than STATUS_CHANGE_RETENTION_DAYS in bounded batches,
-- oldest first, through this index of the rows it may delete (every machine's but customers': their KYC holds
-- are counted from their history). Deleted rows leave the index, so it holds only the window's rows.
-- On a large database build it first by hand with CREATE INDEX CONCURRENTLY (docs/deploy.md).
CREATE INDEX IF NOT EXISTS "status_changes_prunable_idx" ON "status_changes" ("created_at") WHERE "machine" <> 'customer';
