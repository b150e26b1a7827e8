-- Issue 30 (30g): the reconciliation sweep reads only the watched payments that are due. A completed payout is
-- watched for a bank return for PAYMENT_RETURN_WINDOW_MS (7 days) after it settles, its next check in
-- reconcile_after (cleared when the watch ends). The old index held every completed payout by settled_at, and
-- the sweep walked the whole window's payments on every pass (every PAYMENT_RECONCILE_INTERVAL_MS) to find the
-- few due: its cost followed a week of business, not the checks due. This one holds the watched payments only,
-- in the order they fall due. On a large database build it first by hand with CREATE INDEX CONCURRENTLY
-- (docs/deploy.md); the migration then finds it.
CREATE INDEX IF NOT EXISTS "transactions_return_watch_due_idx" ON "transactions" ("reconcile_after")
  WHERE "status" = 'COMPLETED' AND "reconcile_after" IS NOT NULL AND "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL';
DROP INDEX IF EXISTS "transactions_completed_watch_idx";
