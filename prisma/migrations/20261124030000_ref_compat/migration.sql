-- Issue 13: what REF's official client calls that the spec leaves out.

-- UMA invitations (POST /invitations): a shareable code a customer sends; claimed once by an
-- invitee's UMA address, or cancelled by the creating platform.
CREATE TABLE "uma_invitations" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "code"                TEXT NOT NULL,
  "inviter_uma"         TEXT NOT NULL,
  "inviter_customer_id" TEXT NOT NULL,
  "first_name"          TEXT,
  "amount_to_send"      BIGINT CHECK ("amount_to_send" > 0),
  "amount_currency"     TEXT,
  "status"              TEXT NOT NULL CHECK ("status" IN ('PENDING', 'CLAIMED', 'CANCELLED')),
  "invitee_uma"         TEXT,
  "expires_at"          TIMESTAMPTZ(3),
  "claimed_at"          TIMESTAMPTZ(3),
  "cancelled_at"        TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("amount_to_send" IS NULL) = ("amount_currency" IS NULL)),
  CHECK (("status" = 'CLAIMED') = ("invitee_uma" IS NOT NULL AND "claimed_at" IS NOT NULL))
);
CREATE UNIQUE INDEX "uma_invitations_code_key" ON "uma_invitations"("code");
CREATE INDEX "uma_invitations_platform_id_id_idx" ON "uma_invitations"("platform_id", "id");

-- Bulk customer imports (POST /customers/bulk/csv): the parsed rows, processed by a BullMQ job.
CREATE TABLE "bulk_customer_imports" (
  "id"           TEXT PRIMARY KEY,
  "platform_id"  TEXT NOT NULL,
  "status"       TEXT NOT NULL CHECK ("status" IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED')),
  "rows"         JSONB NOT NULL,
  "total"        INTEGER NOT NULL CHECK ("total" >= 0),
  "processed"    INTEGER NOT NULL DEFAULT 0 CHECK ("processed" >= 0),
  "successful"   INTEGER NOT NULL DEFAULT 0 CHECK ("successful" >= 0),
  "failed"       INTEGER NOT NULL DEFAULT 0 CHECK ("failed" >= 0),
  "errors"       JSONB NOT NULL DEFAULT '[]',
  "completed_at" TIMESTAMPTZ(3),
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK ("processed" = "successful" + "failed" AND "processed" <= "total")
);
CREATE INDEX "bulk_customer_imports_platform_id_id_idx" ON "bulk_customer_imports"("platform_id", "id");

-- Bank-account links (POST /plaid/link-tokens): one link session of a customer with the bank-link
-- provider; its public token yields a verified external account.
CREATE TABLE "bank_links" (
  "id"                  TEXT PRIMARY KEY,
  "platform_id"         TEXT NOT NULL,
  "customer_id"         TEXT NOT NULL,
  "provider"            TEXT NOT NULL,
  "link_token"          TEXT NOT NULL,
  "status"              TEXT NOT NULL CHECK ("status" IN ('PENDING', 'COMPLETED', 'FAILED')),
  "external_account_id" TEXT,
  "failure"             TEXT,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "bank_links_link_token_key" ON "bank_links"("link_token");
CREATE INDEX "bank_links_platform_id_customer_id_idx" ON "bank_links"("platform_id", "customer_id");
