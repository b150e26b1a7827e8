-- Issue 26 item 1: standing pay-in coordinates behind the collection port (src/adapters/collection,
-- src/domains/collection; docs/decisions.md anchor 26a).

-- What an internal account shows as fundingPaymentInstructions (REF PaymentInstructions[]): kept on the
-- account row so every resource of it (reads, INTERNAL_ACCOUNT.* events written in SQL) carries it.
ALTER TABLE "internal_accounts" ADD COLUMN "funding_payment_instructions" JSONB NOT NULL DEFAULT '[]'::jsonb;

-- Accounts the coordinates sweep has to look at: every new account, and every account that closes. Written
-- by the database itself, so no path that opens or closes an account can forget to owe its coordinates.
CREATE TABLE "collection_accounts_due" (
  "internal_account_id" TEXT PRIMARY KEY,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE FUNCTION "collection_account_due"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "collection_accounts_due" ("internal_account_id") VALUES (NEW."id") ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER "internal_accounts_collection_due_insert" AFTER INSERT ON "internal_accounts"
  FOR EACH ROW EXECUTE FUNCTION "collection_account_due"();
CREATE TRIGGER "internal_accounts_collection_due_close" AFTER UPDATE OF "status" ON "internal_accounts"
  FOR EACH ROW WHEN (NEW."status" IN ('CLOSED', 'FAILED') AND OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION "collection_account_due"();
INSERT INTO "collection_accounts_due" ("internal_account_id") SELECT "id" FROM "internal_accounts";

-- One row per internal account and collection rail: what is owed (PENDING: open; CLOSING: close) and
-- what the provider answered. The sweep takes due rows (next_attempt_at) with FOR UPDATE SKIP LOCKED.
CREATE TABLE "collection_coordinates" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "internal_account_id" TEXT NOT NULL,
  "currency"            TEXT NOT NULL,
  "rail"                TEXT NOT NULL,
  "adapter_id"          TEXT NOT NULL,
  "status"              TEXT NOT NULL DEFAULT 'PENDING' CHECK ("status" IN ('PENDING', 'OPEN', 'CLOSING', 'CLOSED', 'FAILED')),
  "reference"           TEXT,
  "instructions"        JSONB,
  "attempts"            INTEGER NOT NULL DEFAULT 0,
  "next_attempt_at"     TIMESTAMPTZ(3),
  "last_error"          TEXT,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("status" = 'OPEN') <= ("reference" IS NOT NULL AND "instructions" IS NOT NULL))
);
CREATE UNIQUE INDEX "collection_coordinates_account_rail_key" ON "collection_coordinates"("internal_account_id", "rail");
CREATE UNIQUE INDEX "collection_coordinates_adapter_reference_key" ON "collection_coordinates"("adapter_id", "reference");
CREATE INDEX "collection_coordinates_next_attempt_at_idx" ON "collection_coordinates"("next_attempt_at");

-- Every credit a collection provider reported, once per (adapter, provider credit id): APPLIED (an
-- INCOMING transaction and its ledger credit, transaction_id fixed before the write so a retry after a
-- crash writes the same one), HELD (a frozen or closed account, an unmatched reference, another currency:
-- reported and kept, never lost) or RECEIVED (being applied; the reconcile sweep finishes it).
CREATE TABLE "collection_credits" (
  "id"                  TEXT PRIMARY KEY,
  "adapter_id"          TEXT NOT NULL,
  "provider_credit_id"  TEXT NOT NULL,
  "platform_id"         TEXT,
  "internal_account_id" TEXT,
  "coordinates_id"      TEXT,
  "transaction_id"      TEXT NOT NULL,
  "reference"           TEXT NOT NULL,
  "rail"                TEXT NOT NULL,
  "amount"              BIGINT NOT NULL CHECK ("amount" > 0),
  "currency"            TEXT NOT NULL,
  "sender"              JSONB,
  "status"              TEXT NOT NULL DEFAULT 'RECEIVED' CHECK ("status" IN ('RECEIVED', 'APPLIED', 'HELD')),
  "held_reason"         TEXT CHECK ("held_reason" IN ('ACCOUNT_FROZEN', 'ACCOUNT_CLOSED', 'ACCOUNT_NOT_ACTIVE', 'UNMATCHED', 'CURRENCY_MISMATCH')),
  "received_at"         TIMESTAMPTZ(3) NOT NULL,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("status" = 'HELD') = ("held_reason" IS NOT NULL))
);
CREATE UNIQUE INDEX "collection_credits_provider_credit_key" ON "collection_credits"("adapter_id", "provider_credit_id");
CREATE UNIQUE INDEX "collection_credits_transaction_id_key" ON "collection_credits"("transaction_id");
CREATE INDEX "collection_credits_platform_id_status_id_idx" ON "collection_credits"("platform_id", "status", "id");
CREATE INDEX "collection_credits_status_created_at_idx" ON "collection_credits"("status", "created_at");

-- How far the reconciliation poll has read each provider's credits.
CREATE TABLE "collection_poll_cursors" (
  "adapter_id" TEXT PRIMARY KEY,
  "cursor"     TEXT NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The sandbox collection provider's own record of the credits it received (not tenant data): what its
-- poll answers, in arrival order.
CREATE TABLE "sandbox_collection_credits" (
  "seq"        BIGSERIAL PRIMARY KEY,
  "credit_id"  TEXT NOT NULL UNIQUE,
  "payload"    JSONB NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
