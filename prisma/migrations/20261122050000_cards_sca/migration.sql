-- Cards, signed retries, Strong Customer Authentication, factor reset and stablecoin enablement (issue 7).

-- Platform settings (decisions A13, A16).
ALTER TABLE "platforms"
  ADD COLUMN "max_live_cards"                   INTEGER NOT NULL DEFAULT 1000 CHECK ("max_live_cards" >= 0),
  ADD COLUMN "one_card_per_cardholder"          BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN "stablecoin_enablement_status"     TEXT NOT NULL DEFAULT 'NOT_ENABLED'
    CHECK ("stablecoin_enablement_status" IN ('NOT_ENABLED', 'PENDING_APPROVAL', 'ENABLING', 'ENABLED', 'DISABLED')),
  ADD COLUMN "stablecoin_enablement_updated_at" TIMESTAMPTZ(3);

CREATE TABLE "cards" (
  "id"                        TEXT PRIMARY KEY,
  "platform_id"               TEXT NOT NULL,
  "customer_id"               TEXT NOT NULL,
  "platform_card_id"          TEXT NOT NULL,
  "form"                      TEXT NOT NULL CHECK ("form" IN ('VIRTUAL')),
  "state"                     TEXT NOT NULL CHECK ("state" IN ('ACTIVE', 'FROZEN', 'CLOSED')),
  "state_reason"              TEXT CHECK ("state_reason" IN ('ISSUER_REJECTED', 'CLOSED_BY_PLATFORM', 'CLOSED_BY_SVC')),
  "currency"                  TEXT NOT NULL,
  "funding_sources"           TEXT[] NOT NULL CHECK (cardinality("funding_sources") >= 1),
  "max_spend_per_transaction" BIGINT CHECK ("max_spend_per_transaction" >= 1),
  -- The cardholder's id while this card holds the platform's one-card-per-cardholder slot; null otherwise
  -- (closed cards, or platforms without the rule). The unique index is the database's half of the rule.
  "cardholder_slot"           TEXT,
  "closed_at"                 TIMESTAMPTZ(3),
  "created_at"                TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"                TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("state" = 'CLOSED') = ("closed_at" IS NOT NULL)),
  CHECK ("state" <> 'CLOSED' OR "cardholder_slot" IS NULL),
  CHECK ("cardholder_slot" IS NULL OR "cardholder_slot" = "customer_id")
);
CREATE UNIQUE INDEX "cards_platform_id_platform_card_id_key" ON "cards"("platform_id", "platform_card_id");
CREATE UNIQUE INDEX "cards_platform_id_cardholder_slot_key" ON "cards"("platform_id", "cardholder_slot");
CREATE INDEX "cards_platform_id_customer_id_id_idx" ON "cards"("platform_id", "customer_id", "id");
CREATE INDEX "cards_platform_id_state_idx" ON "cards"("platform_id", "state");

-- Status history of the lifecycles this migration adds (card, SCA factor reset, stablecoin enablement).
CREATE TABLE "lifecycle_status_changes" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "machine"     TEXT NOT NULL,
  "resource_id" TEXT NOT NULL,
  "event"       TEXT NOT NULL,
  "from_status" TEXT NOT NULL,
  "to_status"   TEXT NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "lifecycle_status_changes_platform_id_resource_id_idx" ON "lifecycle_status_changes"("platform_id", "resource_id");

-- P-256 public keys a customer registered to sign sensitive changes (decision A14).
CREATE TABLE "signing_credentials" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "public_key"  TEXT NOT NULL CHECK ("public_key" ~ '^0[23][0-9a-f]{64}$'),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "signing_credentials_platform_id_customer_id_public_key_key" ON "signing_credentials"("platform_id", "customer_id", "public_key");

-- The 202 challenges of signed retries: what they bind, when they expire, whether they were used.
CREATE TABLE "signed_requests" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "customer_id"         TEXT NOT NULL,
  "resource_id"         TEXT NOT NULL,
  "action"              TEXT NOT NULL,
  "body_hash"           TEXT NOT NULL,
  "credential_set_hash" TEXT NOT NULL,
  "payload_to_sign"     TEXT NOT NULL,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "used_at"             TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "signed_requests_platform_id_resource_id_idx" ON "signed_requests"("platform_id", "resource_id");

-- SCA factors a customer enrolled (TOTP; passkeys later). One per customer and type.
CREATE TABLE "sca_factors" (
  "id"               TEXT PRIMARY KEY,
  "platform_id"      TEXT NOT NULL,
  "customer_id"      TEXT NOT NULL,
  "type"             TEXT NOT NULL CHECK ("type" IN ('TOTP', 'PASSKEY')),
  "status"           TEXT NOT NULL CHECK ("status" IN ('PENDING', 'ACTIVE')),
  "secret"           TEXT NOT NULL,
  "recovery_codes"   TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "last_used_step"   BIGINT,
  "confirmed_at"     TIMESTAMPTZ(3),
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("status" = 'ACTIVE') = ("confirmed_at" IS NOT NULL))
);
CREATE UNIQUE INDEX "sca_factors_platform_id_customer_id_type_key" ON "sca_factors"("platform_id", "customer_id", "type");

-- SCA login sessions: money movement of an SCA customer needs a live one (spec Authentication 4).
CREATE TABLE "sca_sessions" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "customer_id"         TEXT NOT NULL,
  "factor"              TEXT NOT NULL CHECK ("factor" IN ('SMS_OTP', 'TOTP', 'PASSKEY')),
  "end_user_ip_address" TEXT NOT NULL,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "revoked_at"          TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "sca_sessions_platform_id_customer_id_expires_at_idx" ON "sca_sessions"("platform_id", "customer_id", "expires_at");

-- One-time-code challenges: SMS login codes and per-quote authorizations.
CREATE TABLE "sca_challenges" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "purpose"     TEXT NOT NULL CHECK ("purpose" IN ('LOGIN', 'PAYOUT', 'TRANSFER')),
  "quote_id"    TEXT,
  "factor"      TEXT NOT NULL CHECK ("factor" IN ('SMS_OTP', 'TOTP', 'PASSKEY')),
  "available_factors" TEXT[] NOT NULL,
  "code_hash"   TEXT,
  "status"      TEXT NOT NULL CHECK ("status" IN ('OUTSTANDING', 'SUCCEEDED', 'FAILED', 'EXPIRED')),
  "expires_at"  TIMESTAMPTZ(3) NOT NULL,
  "resolved_at" TIMESTAMPTZ(3),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("purpose" = 'LOGIN') = ("quote_id" IS NULL))
);
CREATE INDEX "sca_challenges_platform_id_customer_id_purpose_idx" ON "sca_challenges"("platform_id", "customer_id", "purpose");
CREATE INDEX "sca_challenges_quote_id_idx" ON "sca_challenges"("quote_id");
-- The expiry sweep scans only outstanding challenges.
CREATE INDEX "sca_challenges_outstanding_idx" ON "sca_challenges"("expires_at") WHERE "status" = 'OUTSTANDING';

-- Failed SCA proofs per customer: the lockout ladder of decisions B§6.5.
CREATE TABLE "sca_lockouts" (
  "platform_id"     TEXT NOT NULL,
  "customer_id"     TEXT NOT NULL,
  "failed_attempts" INTEGER NOT NULL DEFAULT 0 CHECK ("failed_attempts" >= 0),
  "locked_until"    TIMESTAMPTZ(3),
  "suspended"       BOOLEAN NOT NULL DEFAULT false,
  "updated_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY ("platform_id", "customer_id")
);

-- SCA factor resets (spec "SCA factor reset"). Rows are kept: they are also the durable count of the
-- 5-per-24-hours limit.
CREATE TABLE "sca_factor_resets" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "customer_id"         TEXT NOT NULL,
  "factor"              TEXT NOT NULL CHECK ("factor" IN ('TOTP', 'SMS_OTP', 'PASSKEY')),
  "status"              TEXT NOT NULL CHECK ("status" IN ('INITIATED', 'PENDING_REVIEW', 'LIVENESS_PASSED', 'COMPLETED', 'REJECTED', 'EXPIRED')),
  "end_user_ip_address" TEXT NOT NULL,
  "token_hash"          TEXT NOT NULL,
  "mobile"              JSONB,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "completed_at"        TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("status" = 'COMPLETED') = ("completed_at" IS NOT NULL))
);
CREATE UNIQUE INDEX "sca_factor_resets_token_hash_key" ON "sca_factor_resets"("token_hash");
CREATE INDEX "sca_factor_resets_platform_id_customer_id_created_at_idx" ON "sca_factor_resets"("platform_id", "customer_id", "created_at");
-- The expiry sweep scans only open resets.
CREATE INDEX "sca_factor_resets_open_idx" ON "sca_factor_resets"("expires_at") WHERE "status" IN ('INITIATED', 'PENDING_REVIEW', 'LIVENESS_PASSED');
