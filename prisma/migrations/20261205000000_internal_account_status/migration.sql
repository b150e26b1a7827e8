-- Issue 25: REF's InternalAccountStatus as a lifecycle (src/domains/ledger/internal-accounts.model.ts).
-- Accounts were always ACTIVE; the column keeps its default, and the database refuses any other value
-- than the lifecycle's.
ALTER TABLE "internal_accounts"
  ADD CONSTRAINT "internal_accounts_status_check" CHECK ("status" IN ('PENDING', 'ACTIVE', 'FROZEN', 'CLOSED', 'FAILED'));

