-- Issue 26 item 2: agents in REF's shape (docs/decisions.md anchor 26b).

-- The policy in REF's shape. The spec's (A17) fields map one to one:
--   currency, maxTransactionAmount, dailyLimit -> spendingLimits {currency, perTransactionLimit, dailyLimit}
--   approvalThreshold                          -> approvalThresholds {currency, amount}, defaultExecutionMode AUTO
--   allowedActions                             -> permissions (CREATE_QUOTE -> CREATE_QUOTES, EXECUTE_QUOTE and
--                                                 CANCEL_TRANSACTION -> EXECUTE_QUOTES, VIEW_TRANSACTIONS and
--                                                 VIEW_ACCOUNTS -> VIEW_TRANSACTIONS, MANAGE_EXTERNAL_ACCOUNTS)
-- Amounts stay JSON strings (JSON has no bigint). Rows already in REF's shape are left alone.
UPDATE "agents" a SET "policy" = jsonb_build_object(
  'permissions', COALESCE((
    SELECT jsonb_agg(DISTINCT p ORDER BY p) FROM (
      SELECT CASE x
        WHEN 'CREATE_QUOTE' THEN 'CREATE_QUOTES'
        WHEN 'EXECUTE_QUOTE' THEN 'EXECUTE_QUOTES'
        WHEN 'CANCEL_TRANSACTION' THEN 'EXECUTE_QUOTES'
        WHEN 'VIEW_ACCOUNTS' THEN 'VIEW_TRANSACTIONS'
        ELSE x END AS p
      FROM jsonb_array_elements_text(a."policy"->'allowedActions') AS x
    ) m), '[]'::jsonb),
  'defaultExecutionMode', 'AUTO',
  'spendingLimits', jsonb_build_object(
    'currency', a."policy"->>'currency',
    'perTransactionLimit', a."policy"->>'maxTransactionAmount',
    'dailyLimit', a."policy"->>'dailyLimit',
    'dailyTransactionLimit', NULL,
    'monthlyLimit', NULL),
  'accountRestrictions', jsonb_build_object('allowedAccountIds', NULL, 'accountRules', '[]'::jsonb),
  'approvalThresholds', jsonb_build_object('currency', a."policy"->>'currency', 'amount', a."policy"->>'approvalThreshold'))
WHERE a."policy" ? 'maxTransactionAmount';

-- REF's isPaused is the DISABLED status; DELETE /agents/{id} ends the agent (DELETED: its tokens stop at once,
-- its payments keep their agentId).
ALTER TABLE "agents" DROP CONSTRAINT IF EXISTS "agents_status_check";
ALTER TABLE "agents" ADD CONSTRAINT "agents_status_check" CHECK ("status" IN ('ACTIVE', 'DISABLED', 'DELETED'));

-- REF's usage: transactions per day beside the amount, and the month's amount. Counted by conditional
-- upserts in the transaction that writes the money movement (agents.policy.ts countUsage).
ALTER TABLE "agent_daily_usage" ADD COLUMN "tx_count" INTEGER NOT NULL DEFAULT 0 CHECK ("tx_count" >= 0);
CREATE TABLE "agent_monthly_usage" (
  "platform_id" TEXT NOT NULL,
  "agent_id"    TEXT NOT NULL,
  "month"       DATE NOT NULL,
  "used"        BIGINT NOT NULL DEFAULT 0 CHECK ("used" >= 0),
  PRIMARY KEY ("agent_id", "month")
);
INSERT INTO "agent_monthly_usage" ("platform_id", "agent_id", "month", "used")
SELECT "platform_id", "agent_id", date_trunc('month', "day")::date, SUM("used")
  FROM "agent_daily_usage" GROUP BY 1, 2, 3;

-- REF's AgentAction: what an agent asked for (execute a quote, transfer out or in), its approval and outcome.
CREATE TABLE "agent_actions" (
  "id"               TEXT PRIMARY KEY,
  "platform_id"      TEXT NOT NULL,
  "agent_id"         TEXT NOT NULL REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "customer_id"      TEXT NOT NULL,
  "type"             TEXT NOT NULL CHECK ("type" IN ('EXECUTE_QUOTE', 'TRANSFER_OUT', 'TRANSFER_IN')),
  "status"           TEXT NOT NULL CHECK ("status" IN ('PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED')),
  "quote_id"         TEXT,
  "transaction_id"   TEXT,
  "transfer_details" JSONB,
  "rejection_reason" TEXT,
  "failure_reason"   TEXT,
  "expires_at"       TIMESTAMPTZ(3),
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "agent_actions_platform_id_agent_id_id_idx" ON "agent_actions"("platform_id", "agent_id", "id");
CREATE INDEX "agent_actions_platform_id_status_id_idx" ON "agent_actions"("platform_id", "status", "id");
CREATE INDEX "agent_actions_transaction_id_idx" ON "agent_actions"("transaction_id");
-- The expiry sweep reads only actions still waiting for the platform.
CREATE INDEX "agent_actions_pending_expiry_idx" ON "agent_actions"("expires_at") WHERE "status" = 'PENDING_APPROVAL';
