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

-- A wallet-funded card's authorization signed through the card's delegated key, without the customer
-- present (REF delegated keys): the payload and the custody provider's stamp, once per processor token.
CREATE TABLE "delegated_key_signatures" (
  "id" TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "delegated_key_id" TEXT NOT NULL,
  "card_id" TEXT NOT NULL,
  "issuer_transaction_token" TEXT NOT NULL,
  "payload" TEXT NOT NULL,
  "public_key" TEXT NOT NULL,
  "signature" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "delegated_key_signatures_platform_id_issuer_transaction_token_key" ON "delegated_key_signatures" ("platform_id", "issuer_transaction_token");
CREATE INDEX "delegated_key_signatures_platform_id_delegated_key_id_idx" ON "delegated_key_signatures" ("platform_id", "delegated_key_id");

-- When the credit poll last asked the custody provider about the wallet's credits (a provider reached over
-- the http bridge reports nothing by itself); never asked yet: NULL, asked first.
ALTER TABLE "embedded_wallets" ADD COLUMN "credits_polled_at" TIMESTAMPTZ(3);
CREATE INDEX "embedded_wallets_credits_polled_at_idx" ON "embedded_wallets" ("credits_polled_at");
