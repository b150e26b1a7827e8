-- External accounts (issue 4): accounts, their ownership/trust challenges and their status history.

CREATE TABLE "external_accounts" (
  "id"                              TEXT PRIMARY KEY,
  "platform_id"                     TEXT NOT NULL,
  "customer_id"                     TEXT,
  "owner_key"                       TEXT NOT NULL,
  "status"                          TEXT NOT NULL CHECK ("status" IN ('PENDING', 'ACTIVE', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED', 'UNDER_REVIEW', 'INACTIVE')),
  "platform_account_id"             TEXT,
  "ownership_type"                  TEXT CHECK ("ownership_type" IN ('FIRST_PARTY', 'THIRD_PARTY')),
  "currency"                        TEXT NOT NULL,
  "account_type"                    TEXT NOT NULL,
  "account_info"                    JSONB NOT NULL,
  "payment_rails"                   TEXT[] NOT NULL,
  "identifier_last3"                TEXT NOT NULL,
  "identity_hash"                   TEXT NOT NULL,
  "default_uma_deposit_account"     BOOLEAN NOT NULL DEFAULT false,
  "beneficiary_verification_status" TEXT,
  "beneficiary_verified_data"       JSONB,
  "trusted_at"                      TIMESTAMPTZ(3),
  "is_deleted"                      BOOLEAN NOT NULL DEFAULT false,
  "deleted_at"                      TIMESTAMPTZ(3),
  "created_at"                      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"                      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("customer_id" IS NULL AND "owner_key" = 'PLATFORM') OR "owner_key" = "customer_id"),
  -- Only a customer's account can be its UMA deposit default, and a deleted one never is.
  CHECK (NOT "default_uma_deposit_account" OR ("customer_id" IS NOT NULL AND NOT "is_deleted")),
  -- A trusted beneficiary cannot be deleted (spec, BENEFICIARY_TRUSTED): untrust first.
  CHECK (NOT ("is_deleted" AND "trusted_at" IS NOT NULL))
);
CREATE INDEX "external_accounts_platform_id_customer_id_id_idx" ON "external_accounts"("platform_id", "customer_id", "id");
-- Duplicate rule: one live account per owner, currency and identifying fields (the hash includes the type).
CREATE UNIQUE INDEX "external_accounts_live_identity_key" ON "external_accounts"("platform_id", "owner_key", "currency", "identity_hash") WHERE NOT "is_deleted";
-- At most one default UMA deposit account per customer.
CREATE UNIQUE INDEX "external_accounts_default_uma_key" ON "external_accounts"("platform_id", "customer_id") WHERE "default_uma_deposit_account" AND NOT "is_deleted";

CREATE TABLE "external_account_challenges" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "external_account_id" TEXT NOT NULL REFERENCES "external_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "purpose"             TEXT NOT NULL CHECK ("purpose" IN ('OWNERSHIP', 'TRUST')),
  "method"              TEXT NOT NULL CHECK ("method" IN ('WALLET_SIGNATURE', 'LIVENESS', 'SMS_OTP')),
  "action"              TEXT CHECK ("action" IN ('TRUST', 'UNTRUST')),
  "status"              TEXT NOT NULL CHECK ("status" IN ('OUTSTANDING', 'SUCCEEDED', 'FAILED', 'ABANDONED')),
  "message_to_sign"     TEXT,
  "secret_hash"         TEXT,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "resolved_at"         TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "external_account_challenges_external_account_id_created_at_idx" ON "external_account_challenges"("external_account_id", "created_at");
CREATE INDEX "external_account_challenges_secret_hash_idx" ON "external_account_challenges"("secret_hash");
-- One outstanding challenge per account and purpose: starting a new one abandons the old one first.
CREATE UNIQUE INDEX "external_account_challenges_outstanding_key" ON "external_account_challenges"("external_account_id", "purpose") WHERE "status" = 'OUTSTANDING';

CREATE TABLE "external_account_status_changes" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "external_account_id" TEXT NOT NULL REFERENCES "external_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "from_status"         TEXT NOT NULL,
  "to_status"           TEXT NOT NULL,
  "event"               TEXT NOT NULL,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "external_account_status_changes_external_account_id_created_at_idx" ON "external_account_status_changes"("external_account_id", "created_at");
