-- Issue 14: the business metrics read at scrape time (src/platform/business-metrics.ts) look at
-- recent payments and journals only; these indexes keep those queries bounded as tables grow.
CREATE INDEX "transactions_created_at_idx" ON "transactions"("created_at");
CREATE INDEX "ledger_journals_created_at_idx" ON "ledger_journals"("created_at");
