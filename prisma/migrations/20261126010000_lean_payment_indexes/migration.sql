-- Issue 12: less index upkeep per payment. A transaction row is written three times (inserted
-- PROCESSING, claimed for submission, settled) and each new version not updated in place costs an
-- entry in every index of the table. Three indexes only ever serve rows with a value in a column
-- that most versions leave empty, so they become partial — the queries they serve name that value
-- (an equality, or the sweep's own conditions), so the planner still uses them:
--   rail_reference   lookups by the rail's reference (reports, the ?reference filter);
--   agent_id         an agent's payments;
--   reconcile_after  the reconciliation sweep (claimDuePayments), which only takes payments handed to
--                    an external rail.
-- And the table keeps 15% of each page free, so the submission claim (submitted_at, in no index)
-- is a HOT update: no index entries at all.
DROP INDEX "transactions_rail_reference_idx";
CREATE INDEX "transactions_rail_reference_idx" ON "transactions"("rail_reference") WHERE "rail_reference" IS NOT NULL;
DROP INDEX "transactions_platform_id_agent_id_id_idx";
CREATE INDEX "transactions_platform_id_agent_id_id_idx" ON "transactions"("platform_id", "agent_id", "id") WHERE "agent_id" IS NOT NULL;
DROP INDEX "transactions_status_reconcile_after_idx";
CREATE INDEX "transactions_status_reconcile_after_idx" ON "transactions"("status", "reconcile_after")
  WHERE "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL';
ALTER TABLE "transactions" SET (fillfactor = 85);
