-- Pluggable adapters (issue 8): reconciliation of payments left PROCESSING, and payout reports
-- pushed by adapters (found by the rail's reference when they do not name our transaction id).
ALTER TABLE "transactions" ADD COLUMN "reconcile_after" TIMESTAMPTZ(3);

-- Payments already submitted are due one rail's expected time after submission; one minute stands in.
UPDATE "transactions" SET "reconcile_after" = "submitted_at" + INTERVAL '1 minute'
 WHERE "status" = 'PROCESSING' AND "submitted_at" IS NOT NULL;

CREATE INDEX "transactions_status_reconcile_after_idx" ON "transactions"("status", "reconcile_after");
CREATE INDEX "transactions_rail_reference_idx" ON "transactions"("rail_reference");
