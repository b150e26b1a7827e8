-- Issue 29 item 2 (docs/decisions.md anchor 29a): the coordinates sweep's queue names its platform, so
-- the sweep takes it per platform group (`platform_id = ANY($1)`, one shard per statement on Citus) and
-- the table is a tenant table like the others (its key includes platform_id).
ALTER TABLE "collection_accounts_due" ADD COLUMN "platform_id" TEXT;
UPDATE "collection_accounts_due" d SET "platform_id" = a."platform_id" FROM "internal_accounts" a WHERE a."id" = d."internal_account_id";
-- An account gone since it was queued owes nothing: the sweep would have found no account for it.
DELETE FROM "collection_accounts_due" WHERE "platform_id" IS NULL;
ALTER TABLE "collection_accounts_due" ALTER COLUMN "platform_id" SET NOT NULL;
ALTER TABLE "collection_accounts_due" DROP CONSTRAINT "collection_accounts_due_pkey";
ALTER TABLE "collection_accounts_due" ADD CONSTRAINT "collection_accounts_due_pkey" PRIMARY KEY ("platform_id", "internal_account_id");

CREATE OR REPLACE FUNCTION "collection_account_due"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "collection_accounts_due" ("platform_id", "internal_account_id") VALUES (NEW."platform_id", NEW."id") ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
