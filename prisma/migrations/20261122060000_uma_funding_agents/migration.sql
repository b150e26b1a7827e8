-- Issue 6: UMA receiver lookups and payments, real-time (just-in-time) funding, agents.

-- A receiver lookup (GET /receiver/uma/{umaAddress}): what the counterparty answered, kept until
-- `expires_at` so a quote can use it by `lookupId`.
CREATE TABLE "uma_lookups" (
  "id"                         TEXT PRIMARY KEY,
  "platform_id"                TEXT NOT NULL,
  "customer_id"                TEXT,
  "sender_uma_address"         TEXT NOT NULL,
  "receiver_uma_address"       TEXT NOT NULL,
  "provider"                   TEXT NOT NULL,
  "supported_currencies"       JSONB NOT NULL,
  "required_payer_data_fields" JSONB NOT NULL,
  "counterparty"               JSONB NOT NULL,
  "expires_at"                 TIMESTAMPTZ(3) NOT NULL,
  "created_at"                 TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "uma_lookups_platform_id_expires_at_idx" ON "uma_lookups"("platform_id", "expires_at");

-- Quotes: the lookup and pay-request terms of UMA destinations, the funding instructions of
-- real-time funded quotes, and the agent that created the quote.
ALTER TABLE "quotes"
  ADD COLUMN "lookup_id"            TEXT,
  ADD COLUMN "uma_payment"          JSONB,
  ADD COLUMN "funding"              TEXT CHECK ("funding" IN ('ACCOUNT', 'REALTIME')),
  ADD COLUMN "payment_instructions" JSONB,
  ADD COLUMN "agent_id"             TEXT;

-- Transactions: incoming payments have no quote; agent payments may wait for the platform.
ALTER TABLE "transactions"
  ALTER COLUMN "quote_id" DROP NOT NULL,
  ADD COLUMN "agent_id"                 TEXT,
  ADD COLUMN "pending_reason"           TEXT CHECK ("pending_reason" IN ('PLATFORM_APPROVAL')),
  ADD COLUMN "approval_requested_at"    TIMESTAMPTZ(3),
  -- What the execution counted against the agent's daily limit (policy currency), given back on reject or cancel.
  ADD COLUMN "agent_counted_amount"     BIGINT CHECK ("agent_counted_amount" >= 0),
  ADD COLUMN "counterparty_information" JSONB,
  ADD CONSTRAINT "transactions_type_check" CHECK ("type" IN ('OUTGOING', 'INCOMING')),
  ADD CONSTRAINT "transactions_direction_check" CHECK ("direction" IN ('DEBIT', 'CREDIT')),
  -- An outgoing payment always comes from a quote; only incoming ones have none.
  ADD CONSTRAINT "transactions_quote_check" CHECK ("quote_id" IS NOT NULL OR "type" = 'INCOMING'),
  -- Awaiting the platform's approval only while nothing moved yet.
  ADD CONSTRAINT "transactions_pending_reason_status_check" CHECK ("pending_reason" IS NULL OR "status" = 'PENDING');
CREATE INDEX "transactions_platform_id_agent_id_id_idx" ON "transactions"("platform_id", "agent_id", "id");

-- One row per way of paying a real-time funded quote (a wallet address on a network, a Lightning
-- invoice, a bank reference). `match_key` is what a detected deposit is matched on.
CREATE TABLE "funding_instructions" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "quote_id"    TEXT NOT NULL,
  "network"     TEXT NOT NULL,
  "asset"       TEXT NOT NULL,
  "match_key"   TEXT NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "funding_instructions_platform_id_match_key_key" ON "funding_instructions"("platform_id", "match_key");
CREATE INDEX "funding_instructions_platform_id_quote_id_idx" ON "funding_instructions"("platform_id", "quote_id");

-- Every detected deposit, once (unique detector id per platform): where it was credited and
-- whether it executed its quote.
CREATE TABLE "deposits" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "external_id"         TEXT NOT NULL,
  "quote_id"            TEXT,
  "instruction_id"      TEXT,
  "network"             TEXT NOT NULL,
  "currency"            TEXT NOT NULL,
  "amount"              BIGINT NOT NULL CHECK ("amount" > 0),
  "credited_account_id" TEXT NOT NULL,
  "outcome"             TEXT NOT NULL CHECK ("outcome" IN ('EXECUTED', 'AWAITING_APPROVAL', 'LIMIT_EXCEEDED', 'AMOUNT_MISMATCH', 'LATE', 'QUOTE_NOT_PENDING')),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "deposits_platform_id_external_id_key" ON "deposits"("platform_id", "external_id");
CREATE INDEX "deposits_platform_id_quote_id_idx" ON "deposits"("platform_id", "quote_id");

-- Agents (A17): act for one customer under a policy.
CREATE TABLE "agents" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "name"        TEXT NOT NULL CHECK (char_length("name") BETWEEN 1 AND 200),
  "policy"      JSONB NOT NULL,
  "status"      TEXT NOT NULL DEFAULT 'ACTIVE' CHECK ("status" IN ('ACTIVE', 'DISABLED')),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "agents_platform_id_id_idx" ON "agents"("platform_id", "id");

-- Device codes and the access token each one was redeemed for. Only SHA-256 hashes are kept.
CREATE TABLE "agent_device_codes" (
  "id"                TEXT PRIMARY KEY,
  "platform_id"       TEXT NOT NULL,
  "agent_id"          TEXT NOT NULL REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "code_hash"         TEXT NOT NULL,
  "expires_at"        TIMESTAMPTZ(3) NOT NULL,
  "redeemed_at"       TIMESTAMPTZ(3),
  "access_token_hash" TEXT,
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("redeemed_at" IS NULL) = ("access_token_hash" IS NULL))
);
CREATE UNIQUE INDEX "agent_device_codes_code_hash_key" ON "agent_device_codes"("code_hash");
CREATE UNIQUE INDEX "agent_device_codes_access_token_hash_key" ON "agent_device_codes"("access_token_hash");
CREATE INDEX "agent_device_codes_agent_id_idx" ON "agent_device_codes"("agent_id");

-- What an agent executed per UTC day, in its policy currency: the daily limit is checked and
-- counted by one conditional upsert in the transaction that executes the payment.
CREATE TABLE "agent_daily_usage" (
  "platform_id" TEXT NOT NULL,
  "agent_id"    TEXT NOT NULL,
  "day"         DATE NOT NULL,
  "used"        BIGINT NOT NULL DEFAULT 0 CHECK ("used" >= 0),
  PRIMARY KEY ("agent_id", "day")
);
