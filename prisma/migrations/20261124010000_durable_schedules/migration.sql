-- Issue 11: every retry schedule survives the loss of Redis; payments always reach a terminal state.
-- Postgres records what is owed (a status and a due time); BullMQ is the fast path. The worker's
-- sweepers re-enqueue whatever is due and held by no live job (docs/decisions.md "Issue 11").

-- Webhooks: the start of the current retry window (the relay's hand-off or a redelivery request),
-- so a delivery re-enqueued by the sweeper keeps its window. Null: the event's creation.
ALTER TABLE "webhook_events" ADD COLUMN "retry_window_started_at" TIMESTAMPTZ(3);
CREATE INDEX "webhook_events_due_idx" ON "webhook_events"("next_attempt_at")
  WHERE "delivery_status" = 'PENDING' AND "relayed_at" IS NOT NULL;

-- Liveness outcomes of wallet-ownership challenges: recorded when the provider reports them, applied by the worker.
ALTER TABLE "external_account_challenges"
  ADD COLUMN "liveness_outcome"    TEXT CHECK ("liveness_outcome" IN ('PASSED', 'FAILED')),
  ADD COLUMN "outcome_received_at" TIMESTAMPTZ(3);
CREATE INDEX "external_account_challenges_outcome_due_idx" ON "external_account_challenges"("outcome_received_at")
  WHERE "status" = 'OUTSTANDING' AND "liveness_outcome" IS NOT NULL;

-- SCA factor resets: the liveness verdict and when its review is due.
ALTER TABLE "sca_factor_resets"
  ADD COLUMN "liveness_outcome" TEXT CHECK ("liveness_outcome" IN ('PASSED', 'FAILED')),
  ADD COLUMN "review_due_at"    TIMESTAMPTZ(3);

-- Transactions: a PROCESSING payment its rail does not know is reported (pendingReason RAIL_PAYOUT_UNKNOWN).
ALTER TABLE "transactions"
  DROP CONSTRAINT IF EXISTS "transactions_pending_reason_check",
  DROP CONSTRAINT IF EXISTS "transactions_pending_reason_status_check",
  ADD CONSTRAINT "transactions_pending_reason_check" CHECK ("pending_reason" IN ('PLATFORM_APPROVAL', 'RAIL_PAYOUT_UNKNOWN')),
  ADD CONSTRAINT "transactions_pending_reason_status_check" CHECK (
    "pending_reason" IS NULL
    OR ("pending_reason" = 'PLATFORM_APPROVAL' AND "status" = 'PENDING')
    OR ("pending_reason" = 'RAIL_PAYOUT_UNKNOWN' AND "status" = 'PROCESSING'));

-- reconcile_after is now the payment's check schedule: set while PROCESSING, or while a completed payment
-- is watched for a bank return (from now on; poll chains already queued set it again as they run).
UPDATE "transactions" SET "reconcile_after" = NULL WHERE "status" <> 'PROCESSING';

-- The sandbox rail's simulated bank (src/adapters/rails/sandbox): its own records, which outlive Redis.
-- Not tenant data: the bank knows payouts by reference and idempotency key only.
CREATE TABLE "sandbox_bank_payouts" (
  "reference"       TEXT PRIMARY KEY,
  "idempotency_key" TEXT NOT NULL UNIQUE,
  "rail"            TEXT NOT NULL,
  "amount"          BIGINT NOT NULL,
  "currency"        TEXT NOT NULL,
  "scenario"        TEXT NOT NULL,
  "submitted_at"    TIMESTAMPTZ(3) NOT NULL,
  -- When the bank first told the service the payout completed (a 005 return is counted from then).
  "completed_at"    TIMESTAMPTZ(3),
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "sandbox_bank_refunds" (
  "idempotency_key"  TEXT PRIMARY KEY,
  "payout_reference" TEXT NOT NULL,
  "reference"        TEXT NOT NULL,
  "status"           TEXT NOT NULL CHECK ("status" IN ('COMPLETED', 'FAILED')),
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "sandbox_bank_refunds_payout_reference_idx" ON "sandbox_bank_refunds"("payout_reference");
