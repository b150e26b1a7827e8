-- Ledger: internal accounts with cached balances, balanced journals, append-only entries.

CREATE TABLE "internal_accounts" (
  "id"                TEXT PRIMARY KEY,
  "platform_id"       TEXT NOT NULL,
  "customer_id"       TEXT,
  "owner_key"         TEXT NOT NULL,
  "currency"          TEXT NOT NULL,
  "type"              TEXT NOT NULL,
  "status"            TEXT NOT NULL DEFAULT 'ACTIVE',
  -- Balances never go negative: the second line of defence behind the ledger's own check.
  "available_balance" BIGINT NOT NULL DEFAULT 0 CHECK ("available_balance" >= 0),
  "held_balance"      BIGINT NOT NULL DEFAULT 0 CHECK ("held_balance" >= 0),
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CHECK (("customer_id" IS NULL AND "owner_key" = 'PLATFORM') OR "owner_key" = "customer_id")
);
CREATE UNIQUE INDEX "internal_accounts_platform_id_owner_key_currency_key" ON "internal_accounts"("platform_id", "owner_key", "currency");
CREATE INDEX "internal_accounts_platform_id_customer_id_idx" ON "internal_accounts"("platform_id", "customer_id");

CREATE TABLE "ledger_journals" (
  "id"              TEXT PRIMARY KEY,
  "platform_id"     TEXT NOT NULL,
  "idempotency_key" TEXT NOT NULL,
  "kind"            TEXT NOT NULL,
  "reference_id"    TEXT,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "ledger_journals_platform_id_idempotency_key_key" ON "ledger_journals"("platform_id", "idempotency_key");
CREATE INDEX "ledger_journals_platform_id_reference_id_idx" ON "ledger_journals"("platform_id", "reference_id");

CREATE TABLE "ledger_entries" (
  "id"          TEXT PRIMARY KEY,
  "platform_id" TEXT NOT NULL,
  "journal_id"  TEXT NOT NULL REFERENCES "ledger_journals"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  "account"     TEXT NOT NULL,
  "bucket"      TEXT NOT NULL CHECK ("bucket" IN ('AVAILABLE', 'HELD', 'SYSTEM')),
  "currency"    TEXT NOT NULL,
  "amount"      BIGINT NOT NULL CHECK ("amount" <> 0),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "ledger_entries_journal_id_idx" ON "ledger_entries"("journal_id");
CREATE INDEX "ledger_entries_platform_id_account_currency_idx" ON "ledger_entries"("platform_id", "account", "currency");

-- Every journal balances per currency, checked at commit (after all its entries are in).
CREATE FUNCTION ledger_check_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM ledger_entries WHERE journal_id = NEW.journal_id
    GROUP BY currency HAVING SUM(amount) <> 0
  ) THEN
    RAISE EXCEPTION 'ledger journal % does not balance', NEW.journal_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER "ledger_entries_balanced" AFTER INSERT ON "ledger_entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_journal_balanced();

-- The ledger is append-only: corrections are new, reversing journals.
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger rows are append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER "ledger_entries_append_only" BEFORE UPDATE OR DELETE ON "ledger_entries"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER "ledger_journals_append_only" BEFORE UPDATE OR DELETE ON "ledger_journals"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
