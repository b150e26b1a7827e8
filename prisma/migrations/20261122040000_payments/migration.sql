-- Quotes, transactions and their status history.

CREATE TABLE "quotes" (
  "id"                     TEXT PRIMARY KEY,
  "platform_id"            TEXT NOT NULL,
  "status"                 TEXT NOT NULL CHECK ("status" IN ('PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED')),
  "customer_id"            TEXT,
  "source_account_id"      TEXT NOT NULL,
  "source"                 JSONB NOT NULL,
  "destination"            JSONB NOT NULL,
  "destination_kind"       TEXT NOT NULL,
  "destination_account_id" TEXT,
  "payment_rail"           TEXT,
  "sending_currency"       TEXT NOT NULL,
  "receiving_currency"     TEXT NOT NULL,
  "locked_side"            TEXT NOT NULL CHECK ("locked_side" IN ('SENDING', 'RECEIVING')),
  "locked_amount"          BIGINT NOT NULL CHECK ("locked_amount" > 0),
  "total_sending_amount"   BIGINT NOT NULL CHECK ("total_sending_amount" > 0),
  "total_receiving_amount" BIGINT NOT NULL CHECK ("total_receiving_amount" > 0),
  "exchange_rate"          TEXT NOT NULL,
  "fees_included"          BIGINT NOT NULL CHECK ("fees_included" >= 0),
  "platform_fees_included" BIGINT NOT NULL CHECK ("platform_fees_included" >= 0),
  "service_fees_included"  BIGINT NOT NULL CHECK ("service_fees_included" >= 0),
  "description"            TEXT,
  "remittance_information" TEXT CHECK (char_length("remittance_information") <= 80),
  "purpose_of_payment"     TEXT,
  "sender_customer_info"   JSONB,
  "transaction_id"         TEXT NOT NULL,
  "expires_at"             TIMESTAMPTZ(3) NOT NULL,
  "executed_at"            TIMESTAMPTZ(3),
  "created_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK ("fees_included" = "platform_fees_included" + "service_fees_included"),
  CHECK ("fees_included" < "total_sending_amount")
);
CREATE UNIQUE INDEX "quotes_transaction_id_key" ON "quotes"("transaction_id");
CREATE INDEX "quotes_platform_id_status_expires_at_idx" ON "quotes"("platform_id", "status", "expires_at");

CREATE TABLE "transactions" (
  "id"                     TEXT PRIMARY KEY,
  "platform_id"            TEXT NOT NULL,
  "quote_id"               TEXT NOT NULL,
  "customer_id"            TEXT,
  "platform_customer_id"   TEXT,
  "status"                 TEXT NOT NULL CHECK ("status" IN ('PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED')),
  "type"                   TEXT NOT NULL,
  "direction"              TEXT NOT NULL,
  "source_account_id"      TEXT NOT NULL,
  "source"                 JSONB NOT NULL,
  "destination"            JSONB NOT NULL,
  "destination_kind"       TEXT NOT NULL,
  "destination_account_id" TEXT,
  "identifier_last3"       TEXT,
  "payment_rail"           TEXT,
  "sent_amount"            BIGINT NOT NULL CHECK ("sent_amount" > 0),
  "sending_currency"       TEXT NOT NULL,
  "received_amount"        BIGINT NOT NULL CHECK ("received_amount" > 0),
  "receiving_currency"     TEXT NOT NULL,
  "exchange_rate"          TEXT NOT NULL,
  "fees"                   BIGINT NOT NULL CHECK ("fees" >= 0),
  "platform_fees"          BIGINT NOT NULL CHECK ("platform_fees" >= 0),
  "service_fees"           BIGINT NOT NULL CHECK ("service_fees" >= 0),
  "description"            TEXT,
  "remittance_information" TEXT,
  "purpose_of_payment"     TEXT,
  "failure_reason"         TEXT,
  "rail_reference"         TEXT,
  "submitted_at"           TIMESTAMPTZ(3),
  "settled_at"             TIMESTAMPTZ(3),
  "refund_status"          TEXT CHECK ("refund_status" IN ('PENDING', 'COMPLETED', 'FAILED')),
  "refund_reference"       TEXT,
  "refund_reason"          TEXT,
  "refund_initiated_at"    TIMESTAMPTZ(3),
  "refund_settled_at"      TIMESTAMPTZ(3),
  "created_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK ("fees" = "platform_fees" + "service_fees")
);
CREATE UNIQUE INDEX "transactions_quote_id_key" ON "transactions"("quote_id");
CREATE INDEX "transactions_platform_id_id_idx" ON "transactions"("platform_id", "id");
CREATE INDEX "transactions_platform_id_status_id_idx" ON "transactions"("platform_id", "status", "id");
CREATE INDEX "transactions_platform_id_customer_id_id_idx" ON "transactions"("platform_id", "customer_id", "id");
-- The sweep that settles PROCESSING payments and expires PENDING ones scans only live rows.
CREATE INDEX "transactions_live_idx" ON "transactions"("status", "updated_at") WHERE "status" IN ('PENDING', 'PROCESSING');

CREATE TABLE "transaction_status_changes" (
  "id"             TEXT PRIMARY KEY,
  "platform_id"    TEXT NOT NULL,
  "transaction_id" TEXT NOT NULL REFERENCES "transactions"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "field"          TEXT NOT NULL CHECK ("field" IN ('status', 'refundStatus')),
  "from_status"    TEXT,
  "to_status"      TEXT NOT NULL,
  "reason"         TEXT,
  "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "transaction_status_changes_transaction_id_created_at_idx" ON "transaction_status_changes"("transaction_id", "created_at");
