-- Cards that spend (issue 27): issuer fields and the provisioning states on cards, card transactions
-- (authorizations and everything reconciled against them) and the processor events applied to them.

ALTER TABLE "cards" DROP CONSTRAINT IF EXISTS "cards_state_check";
ALTER TABLE "cards" ADD CONSTRAINT "cards_state_check"
  CHECK ("state" IN ('PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'));
ALTER TABLE "cards" DROP CONSTRAINT IF EXISTS "cards_state_reason_check";
ALTER TABLE "cards" ADD CONSTRAINT "cards_state_reason_check"
  CHECK ("state_reason" IN ('ISSUER_REJECTED', 'CLOSED_BY_PLATFORM', 'CLOSED_BY_GRID', 'CLOSED_BY_SVC'));
ALTER TABLE "cards"
  ADD COLUMN "brand"         TEXT CHECK ("brand" IN ('VISA', 'MASTERCARD')),
  ADD COLUMN "last4"         TEXT CHECK ("last4" ~ '^[0-9]{4}$'),
  ADD COLUMN "exp_month"     INTEGER CHECK ("exp_month" BETWEEN 1 AND 12),
  ADD COLUMN "exp_year"      INTEGER CHECK ("exp_year" BETWEEN 2000 AND 2200),
  ADD COLUMN "processor_ref" TEXT,
  ADD COLUMN "issuer_ref"    TEXT,
  -- The issuer adapter that provisioned the card (its events are accepted only from it).
  ADD COLUMN "issuer_adapter" TEXT;
-- The provisioning sweep reads cards still PROCESSING.
CREATE INDEX "cards_processing_idx" ON "cards"("updated_at") WHERE "state" = 'PROCESSING';
-- The processor names cards by its own reference in its events.
CREATE UNIQUE INDEX "cards_processor_ref_key" ON "cards"("issuer_adapter", "processor_ref") WHERE "processor_ref" IS NOT NULL;

CREATE TABLE "card_transactions" (
  "id"                      TEXT PRIMARY KEY,
  "platform_id"             TEXT NOT NULL,
  "card_id"                 TEXT NOT NULL,
  "customer_id"             TEXT NOT NULL,
  "platform_customer_id"    TEXT NOT NULL,
  -- The funding source the decision picked (fundingSources[0] in v1).
  "account_id"              TEXT NOT NULL,
  "issuer_transaction_token" TEXT NOT NULL,
  -- AUTHORIZATION, FINANCIAL_AUTHORIZATION, CREDIT_AUTHORIZATION, FINANCIAL_CREDIT_AUTHORIZATION.
  "kind"                    TEXT NOT NULL,
  "status"                  TEXT NOT NULL CHECK ("status" IN ('DECLINED', 'AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXPIRED', 'EXCEPTION')),
  "decline_reason"          TEXT,
  "direction"               TEXT NOT NULL CHECK ("direction" IN ('DEBIT', 'CREDIT')),
  "merchant_descriptor"     TEXT NOT NULL,
  "merchant_mcc"            TEXT,
  "merchant_country"        TEXT,
  -- Amounts in the transaction's currency (the network's), and the funding source's currency with the
  -- rate locked at authorization (funding minor units per transaction minor unit, as a decimal).
  "currency"                TEXT NOT NULL,
  "funding_currency"        TEXT NOT NULL,
  "exchange_rate"           TEXT NOT NULL DEFAULT '1',
  "authorized_amount"       BIGINT NOT NULL CHECK ("authorized_amount" >= 0),
  "settled_amount"          BIGINT NOT NULL DEFAULT 0 CHECK ("settled_amount" >= 0),
  "refunded_amount"         BIGINT NOT NULL DEFAULT 0 CHECK ("refunded_amount" >= 0),
  -- Funding-currency amount still held on the funding source for this transaction.
  "held_amount"             BIGINT NOT NULL DEFAULT 0 CHECK ("held_amount" >= 0),
  "pull_count"              INTEGER NOT NULL DEFAULT 0,
  "pull_total"              BIGINT NOT NULL DEFAULT 0,
  "pull_pending_count"      INTEGER NOT NULL DEFAULT 0,
  -- A pending pull is confirmed (or, sandbox 006, fails) once this time has passed.
  "pull_confirm_at"         TIMESTAMPTZ(3),
  "pull_fails"              BOOLEAN NOT NULL DEFAULT false,
  "settlement_count"        INTEGER NOT NULL DEFAULT 0,
  "settlement_total"        BIGINT NOT NULL DEFAULT 0,
  "refund_count"            INTEGER NOT NULL DEFAULT 0,
  "refund_total"            BIGINT NOT NULL DEFAULT 0,
  -- Funding-currency amount booked against the platform receivable (EXCEPTION).
  "exception_amount"        BIGINT NOT NULL DEFAULT 0,
  "expires_at"              TIMESTAMPTZ(3),
  "authorized_at"           TIMESTAMPTZ(3) NOT NULL,
  "last_event_at"           TIMESTAMPTZ(3) NOT NULL,
  "created_at"              TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"              TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- Idempotent on the processor's token: a retried authorization finds the first decision.
CREATE UNIQUE INDEX "card_transactions_platform_id_token_key" ON "card_transactions"("platform_id", "issuer_transaction_token");
CREATE INDEX "card_transactions_platform_id_card_id_id_idx" ON "card_transactions"("platform_id", "card_id", "id");
CREATE INDEX "card_transactions_platform_id_id_idx" ON "card_transactions"("platform_id", "id");
-- The expiry sweep and the pull confirmations read open authorizations only.
CREATE INDEX "card_transactions_open_idx" ON "card_transactions"("expires_at") WHERE "held_amount" > 0;
CREATE INDEX "card_transactions_pull_idx" ON "card_transactions"("pull_confirm_at") WHERE "pull_pending_count" > 0;

-- Every processor event applied (or refused), once: the unique key is what makes a repeat a no-op.
CREATE TABLE "card_events" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "card_id"             TEXT NOT NULL,
  "card_transaction_id" TEXT,
  "event_token"         TEXT NOT NULL,
  "type"                TEXT NOT NULL,
  "amount"              BIGINT,
  "outcome"             TEXT NOT NULL,
  "reason"              TEXT,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "card_events_platform_id_event_token_key" ON "card_events"("platform_id", "event_token");
CREATE INDEX "card_events_platform_id_card_transaction_id_idx" ON "card_events"("platform_id", "card_transaction_id", "created_at");

-- Reveals are audit-logged (who, when, which card); the URL itself is never stored.
CREATE TABLE "card_reveals" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "card_id"     TEXT NOT NULL,
  "actor"       TEXT NOT NULL,
  "expires_at"  TIMESTAMPTZ(3) NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "card_reveals_platform_id_card_id_idx" ON "card_reveals"("platform_id", "card_id");
