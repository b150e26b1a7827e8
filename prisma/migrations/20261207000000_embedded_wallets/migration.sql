-- Issue 28: embedded wallets (REF Global Accounts). Independent of other migrations of the day.
CREATE TABLE "embedded_wallets" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "custody_adapter" TEXT NOT NULL,
  "custody_ref" TEXT NOT NULL,
  "address" TEXT NOT NULL,
  "private_enabled" BOOLEAN NOT NULL DEFAULT false,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "embedded_wallets_platform_id_customer_id_key" ON "embedded_wallets" ("platform_id", "customer_id");

CREATE TABLE "auth_credentials" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "type" TEXT NOT NULL CHECK ("type" IN ('EMAIL_OTP', 'SMS_OTP', 'OAUTH', 'PASSKEY')),
  "nickname" TEXT NOT NULL,
  "contact" TEXT,
  "credential_id" TEXT,
  "public_key" TEXT,
  "sign_count" BIGINT NOT NULL DEFAULT 0,
  "transports" TEXT[] NOT NULL DEFAULT '{}',
  "oidc_issuer" TEXT,
  "oidc_audience" TEXT,
  "oidc_subject" TEXT,
  "verified_at" TIMESTAMPTZ(3),
  "revoked_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "auth_credentials_platform_id_account_id_idx" ON "auth_credentials" ("platform_id", "account_id");
-- The spec: one EMAIL_OTP and one SMS_OTP per internal account; a passkey once per account; an email
-- tied to one wallet's EMAIL_OTP per platform (EMAIL_OTP_EMAIL_ALREADY_EXISTS). Revoked rows do not count.
CREATE UNIQUE INDEX "auth_credentials_one_otp_per_account" ON "auth_credentials" ("platform_id", "account_id", "type")
  WHERE "revoked_at" IS NULL AND "type" IN ('EMAIL_OTP', 'SMS_OTP');
CREATE UNIQUE INDEX "auth_credentials_passkey_once" ON "auth_credentials" ("platform_id", "account_id", "credential_id")
  WHERE "revoked_at" IS NULL AND "type" = 'PASSKEY';
CREATE UNIQUE INDEX "auth_credentials_email_once" ON "auth_credentials" ("platform_id", "contact")
  WHERE "revoked_at" IS NULL AND "type" = 'EMAIL_OTP';

CREATE TABLE "auth_challenges" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "credential_id" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "secret_hash" TEXT,
  "target_ref" TEXT,
  "client_public_key" TEXT,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "used_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "auth_challenges_platform_id_credential_id_created_at_idx" ON "auth_challenges" ("platform_id", "credential_id", "created_at");

CREATE TABLE "auth_sessions" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "credential_id" TEXT NOT NULL,
  "type" TEXT NOT NULL,
  "public_key" TEXT NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "revoked_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "auth_sessions_platform_id_account_id_expires_at_idx" ON "auth_sessions" ("platform_id", "account_id", "expires_at");

CREATE TABLE "delegated_keys" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "card_id" TEXT NOT NULL,
  "funding_source_id" TEXT NOT NULL,
  "public_key" TEXT NOT NULL,
  "signer_ref" TEXT NOT NULL,
  "nickname" TEXT NOT NULL,
  "status" TEXT NOT NULL CHECK ("status" IN ('PENDING', 'ACTIVE', 'REVOKED')),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "delegated_keys_platform_id_account_id_idx" ON "delegated_keys" ("platform_id", "account_id");
CREATE INDEX "delegated_keys_platform_id_card_id_idx" ON "delegated_keys" ("platform_id", "card_id");
-- REF: one ACTIVE key per card funding source (a second gets 409).
CREATE UNIQUE INDEX "delegated_keys_one_active" ON "delegated_keys" ("platform_id", "card_id", "funding_source_id") WHERE "status" = 'ACTIVE';

CREATE TABLE "sandbox_custody_secrets" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "sealed" TEXT NOT NULL,
  "public_key" TEXT,
  "expires_at" TIMESTAMPTZ(3),
  "revoked_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "embedded_wallet_configs" (
  "platform_id" TEXT PRIMARY KEY,
  "config" JSONB NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- A customer's EMBEDDED_WALLET account sits beside its ordinary account of the same currency (USDB):
-- its owner key is "<customer id>:EMBEDDED_WALLET" (src/domains/wallet/wallet.model.ts walletOwnerKey).
ALTER TABLE "internal_accounts" DROP CONSTRAINT "internal_accounts_check";
ALTER TABLE "internal_accounts" ADD CONSTRAINT "internal_accounts_check" CHECK (
  ("customer_id" IS NULL AND "owner_key" = 'PLATFORM') OR "owner_key" = "customer_id"
  OR ("type" = 'EMBEDDED_WALLET' AND "owner_key" = "customer_id" || ':EMBEDDED_WALLET'));
