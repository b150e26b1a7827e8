-- Issue 27: card transactions in the unfiltered GET /transactions list, ordered and paginated with the
-- payments (src/domains/cards/card-transactions.reads.ts withCardTransactions). A time window is served
-- in (created_at, id) order and a customer's list in id order, each by an index (keyset pagination,
-- src/platform/http/keyset.ts; test/platform/plans.test.ts).
CREATE INDEX "card_transactions_platform_id_created_at_id_idx" ON "card_transactions"("platform_id", "created_at", "id");
CREATE INDEX "card_transactions_platform_id_customer_id_id_idx" ON "card_transactions"("platform_id", "customer_id", "id");
