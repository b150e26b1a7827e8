-- Issue 28 (anchor 28b): what the wallet domain owes, recorded in Postgres so any worker can finish it.

-- An EMBEDDED_WALLET account owed to an existing customer once its platform enabled Global Accounts
-- (USDB among its currencies and embeddedWalletConfig set). `id` is the internal account id the wallet
-- will have: the custody provider's idempotency key, so a retried provisioning opens one wallet.
CREATE TABLE "embedded_wallet_provisions" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "customer_id" TEXT NOT NULL,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_error" TEXT,
  "due_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "done_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "embedded_wallet_provisions_platform_id_customer_id_key" ON "embedded_wallet_provisions" ("platform_id", "customer_id");
-- The sweep reads only the rows still owed.
CREATE INDEX "embedded_wallet_provisions_due_idx" ON "embedded_wallet_provisions" ("due_at") WHERE "done_at" IS NULL;

-- An on-chain credit to an embedded wallet as the custody provider reported it. `id` is the INCOMING
-- transaction it becomes: the transaction's primary key makes the credit happen once however often the
-- provider reports it or a worker retries it.
CREATE TABLE "wallet_incoming_credits" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "provider_ref" TEXT NOT NULL,
  "amount" BIGINT NOT NULL CHECK ("amount" > 0),
  "currency" TEXT NOT NULL,
  "sender_address" TEXT,
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "due_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "credited_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "wallet_incoming_credits_platform_id_account_id_provider_ref_key" ON "wallet_incoming_credits" ("platform_id", "account_id", "provider_ref");
CREATE INDEX "wallet_incoming_credits_due_idx" ON "wallet_incoming_credits" ("due_at") WHERE "credited_at" IS NULL;
