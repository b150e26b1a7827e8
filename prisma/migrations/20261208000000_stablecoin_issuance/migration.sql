-- Stablecoin issuance (issue 26, REF "Stablecoins"): provider account links with sealed credentials,
-- registered tokens with their per-token operations status, and mint/burn operations. The sandbox
-- issuer's own records (the simulated provider) live beside them, as the sandbox bank's do.

CREATE TABLE "stablecoin_provider_accounts" (
  "id"                   TEXT PRIMARY KEY,
  "platform_id"          TEXT NOT NULL,
  "provider"             TEXT NOT NULL CHECK ("provider" IN ('BRALE')),
  "provider_account_id"  TEXT NOT NULL,
  "provider_environment" TEXT NOT NULL CHECK ("provider_environment" IN ('SANDBOX', 'PRODUCTION')),
  "status"               TEXT NOT NULL CHECK ("status" IN ('ACTIVE', 'INVALID', 'REVOKED')),
  "api_client_id"        TEXT NOT NULL,
  -- AES-256-GCM under EXTERNAL_ACCOUNT_ENCRYPTION_KEY (`enc:v1:`); never returned by the API.
  "sealed_secret"        TEXT NOT NULL CHECK ("sealed_secret" LIKE 'enc:v1:%'),
  "last_verified_at"     TIMESTAMPTZ(3),
  "next_verify_at"       TIMESTAMPTZ(3),
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "stablecoin_provider_accounts_link_key" ON "stablecoin_provider_accounts"("platform_id", "provider", "provider_environment", "provider_account_id");
CREATE INDEX "stablecoin_provider_accounts_platform_id_id_idx" ON "stablecoin_provider_accounts"("platform_id", "id");
CREATE INDEX "stablecoin_provider_accounts_status_next_verify_at_idx" ON "stablecoin_provider_accounts"("status", "next_verify_at");

CREATE TABLE "stablecoins" (
  "id"                             TEXT PRIMARY KEY,
  "platform_id"                    TEXT NOT NULL,
  "name"                           TEXT NOT NULL,
  "symbol"                         TEXT NOT NULL,
  "base_currency"                  TEXT NOT NULL,
  "network"                        TEXT NOT NULL CHECK ("network" IN ('SPARK')),
  "decimals"                       INTEGER NOT NULL CHECK ("decimals" BETWEEN 2 AND 18),
  "issuance_status"                TEXT NOT NULL CHECK ("issuance_status" IN ('PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED')),
  "grid_operations_status"         TEXT NOT NULL CHECK ("grid_operations_status" IN ('NOT_ENABLED', 'PENDING_APPROVAL', 'ENABLING', 'ENABLED', 'DISABLED')),
  "network_token_identifier"       TEXT NOT NULL,
  "currency"                       TEXT,
  "provider"                       TEXT NOT NULL,
  "stablecoin_provider_account_id" TEXT NOT NULL REFERENCES "stablecoin_provider_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "provider_environment"           TEXT NOT NULL,
  "provider_token_identifier"      TEXT NOT NULL,
  "created_at"                     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"                     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  -- REF: `currency` appears once the token is enabled for Grid operations.
  CHECK (("currency" IS NOT NULL) = ("grid_operations_status" = 'ENABLED'))
);
CREATE UNIQUE INDEX "stablecoins_network_token_key" ON "stablecoins"("platform_id", "provider_environment", "network", "network_token_identifier");
CREATE UNIQUE INDEX "stablecoins_provider_token_key" ON "stablecoins"("platform_id", "stablecoin_provider_account_id", "provider_token_identifier");
CREATE INDEX "stablecoins_platform_id_id_idx" ON "stablecoins"("platform_id", "id");

CREATE TABLE "stablecoin_operations" (
  "id"                             TEXT PRIMARY KEY,
  "platform_id"                    TEXT NOT NULL,
  "stablecoin_id"                  TEXT NOT NULL REFERENCES "stablecoins"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "operation_type"                 TEXT NOT NULL CHECK ("operation_type" IN ('MINT', 'BURN')),
  "status"                         TEXT NOT NULL CHECK ("status" IN ('CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED')),
  "amount"                         BIGINT NOT NULL CHECK ("amount" > 0),
  -- The amount in the base currency's minor units (REF: must convert exactly to a whole cent).
  "fiat_amount"                    BIGINT NOT NULL CHECK ("fiat_amount" > 0),
  "provider"                       TEXT NOT NULL,
  "provider_environment"           TEXT NOT NULL,
  "stablecoin_provider_account_id" TEXT NOT NULL,
  "source"                         JSONB NOT NULL,
  "destination"                    JSONB NOT NULL,
  "funding_instructions"           JSONB,
  "estimated_delivery"             JSONB,
  "expires_at"                     TIMESTAMPTZ(3),
  "provider_operation_id"          TEXT,
  "provider_status"                TEXT,
  "failure_reason"                 TEXT,
  "description"                    TEXT,
  -- When the reconciliation job asks the provider next (NULL: nothing to ask, the operation is final).
  "next_check_at"                  TIMESTAMPTZ(3),
  "check_attempts"                 INTEGER NOT NULL DEFAULT 0,
  "created_at"                     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"                     TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("status" = 'FAILED') = ("failure_reason" IS NOT NULL)),
  CHECK ("status" <> 'PENDING_FUNDING' OR "expires_at" IS NOT NULL)
);
CREATE INDEX "stablecoin_operations_list_idx" ON "stablecoin_operations"("platform_id", "stablecoin_id", "operation_type", "id");
-- The sweeps: due provider checks (NULL once final) and PENDING_FUNDING operations by expiry.
CREATE INDEX "stablecoin_operations_next_check_at_idx" ON "stablecoin_operations"("next_check_at");
CREATE INDEX "stablecoin_operations_status_expires_at_idx" ON "stablecoin_operations"("status", "expires_at");
CREATE UNIQUE INDEX "stablecoin_operations_provider_ref_key" ON "stablecoin_operations"("provider", "provider_operation_id");

-- The sandbox issuer's simulated provider (not tenant data): one operation per idempotency key, and
-- the API clients whose credentials the simulated provider no longer honours.
CREATE TABLE "sandbox_issuer_operations" (
  "reference"       TEXT PRIMARY KEY,
  "idempotency_key" TEXT NOT NULL UNIQUE,
  "operation_type"  TEXT NOT NULL,
  "funding_rail"    TEXT NOT NULL,
  "scenario"        TEXT NOT NULL,
  "amount"          BIGINT NOT NULL,
  "funded_at"       TIMESTAMPTZ(3),
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "sandbox_issuer_clients" (
  "api_client_id" TEXT PRIMARY KEY,
  "status"        TEXT NOT NULL CHECK ("status" IN ('INVALID', 'REVOKED')),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
