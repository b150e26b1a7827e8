-- Issue 26 (26c): the coordinates sweep's queue names the platform of each account it owes (tenant key, issue 29):
-- platform_id filled from the account, then part of the key; the trigger writes it from the account row.
ALTER TABLE "collection_accounts_due" ADD COLUMN "platform_id" TEXT;
UPDATE "collection_accounts_due" d SET "platform_id" = a."platform_id" FROM "internal_accounts" a WHERE a."id" = d."internal_account_id";
DELETE FROM "collection_accounts_due" WHERE "platform_id" IS NULL;
ALTER TABLE "collection_accounts_due" ALTER COLUMN "platform_id" SET NOT NULL;
ALTER TABLE "collection_accounts_due" DROP CONSTRAINT "collection_accounts_due_pkey";
ALTER TABLE "collection_accounts_due" ADD CONSTRAINT "collection_accounts_due_pkey" PRIMARY KEY ("platform_id", "internal_account_id");

CREATE OR REPLACE FUNCTION "collection_account_due"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "collection_accounts_due" ("platform_id", "internal_account_id") VALUES (NEW."platform_id", NEW."id") ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
