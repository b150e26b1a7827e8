-- Foundation: platforms, credentials, fee configs, webhook outbox, idempotency, service keys.

CREATE TABLE "platforms" (
  "id"                 TEXT PRIMARY KEY,
  "name"               TEXT NOT NULL,
  "is_regulated"       BOOLEAN NOT NULL DEFAULT false,
  "counterparty_rules" BOOLEAN NOT NULL DEFAULT false,
  "sca_region"         BOOLEAN NOT NULL DEFAULT false,
  "webhook_endpoint"   TEXT,
  "uma_domain"         TEXT,
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "platform_credentials" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "client_id"   TEXT NOT NULL,
  "secret_hash" TEXT NOT NULL,
  "permissions" TEXT[],
  "revoked_at"  TIMESTAMPTZ(3),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "platform_credentials_client_id_key" ON "platform_credentials"("client_id");
CREATE INDEX "platform_credentials_platform_id_idx" ON "platform_credentials"("platform_id");

CREATE TABLE "fee_configs" (
  "id"                 TEXT PRIMARY KEY,
  "platform_id"        TEXT NOT NULL REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "config_key"         TEXT NOT NULL,
  "fee_type"           TEXT NOT NULL,
  "source_currency"    TEXT,
  "rail"               TEXT,
  "direction"          TEXT,
  "originator"         TEXT,
  "variable_fee_bps"   INTEGER NOT NULL CHECK ("variable_fee_bps" BETWEEN 0 AND 10000),
  "fixed_fee_amount"   BIGINT NOT NULL CHECK ("fixed_fee_amount" >= 0),
  "fixed_fee_currency" TEXT NOT NULL,
  "active"             BOOLEAN NOT NULL,
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "fee_configs_platform_id_config_key_key" ON "fee_configs"("platform_id", "config_key");

CREATE TABLE "webhook_events" (
  "id"              TEXT PRIMARY KEY,
  "platform_id"     TEXT NOT NULL,
  "type"            TEXT NOT NULL,
  "data"            JSONB NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "relayed_at"      TIMESTAMPTZ(3),
  "delivery_status" TEXT NOT NULL DEFAULT 'PENDING',
  "attempt_count"   INTEGER NOT NULL DEFAULT 0,
  "last_attempt_at" TIMESTAMPTZ(3),
  "next_attempt_at" TIMESTAMPTZ(3),
  "delivered_at"    TIMESTAMPTZ(3),
  "last_error"      TEXT
);
CREATE INDEX "webhook_events_platform_id_created_at_id_idx" ON "webhook_events"("platform_id", "created_at", "id");
-- The relay scans only rows not yet handed to the queue.
CREATE INDEX "webhook_events_unrelayed_idx" ON "webhook_events"("created_at") WHERE "relayed_at" IS NULL;

CREATE TABLE "webhook_attempts" (
  "id"           TEXT PRIMARY KEY,
  "platform_id"  TEXT NOT NULL,
  "event_id"     TEXT NOT NULL REFERENCES "webhook_events"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "attempted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "url"          TEXT NOT NULL,
  "http_status"  INTEGER,
  "latency_ms"   INTEGER NOT NULL,
  "outcome"      TEXT NOT NULL,
  "error"        TEXT
);
CREATE INDEX "webhook_attempts_event_id_attempted_at_idx" ON "webhook_attempts"("event_id", "attempted_at");

CREATE TABLE "idempotency_records" (
  "platform_id"     TEXT NOT NULL,
  "key"             TEXT NOT NULL,
  "fingerprint"     TEXT NOT NULL,
  "state"           TEXT NOT NULL,
  "response_status" INTEGER,
  "response_body"   TEXT,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "expires_at"      TIMESTAMPTZ(3) NOT NULL,
  PRIMARY KEY ("platform_id", "key")
);
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

CREATE TABLE "service_keys" (
  "id"              TEXT PRIMARY KEY,
  "private_key_pem" TEXT NOT NULL,
  "public_key_pem"  TEXT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "platform_currencies" (
  "platform_id"                  TEXT NOT NULL REFERENCES "platforms"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "currency_code"                TEXT NOT NULL,
  "min_amount"                   BIGINT NOT NULL CHECK ("min_amount" >= 0),
  "max_amount"                   BIGINT NOT NULL,
  "required_counterparty_fields" JSONB NOT NULL DEFAULT '[]',
  "enabled_transaction_types"    TEXT[],
  "created_at"                   TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"                   TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY ("platform_id", "currency_code"),
  CHECK ("max_amount" >= "min_amount")
);
