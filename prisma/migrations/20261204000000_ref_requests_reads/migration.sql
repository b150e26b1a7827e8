-- Issue 25 (REF requests and reads). All columns nullable, no default rewrite: adding them is a
-- catalogue change only, whatever the tables' sizes.

-- End-user terms (docs/decisions.md "Issue 25 — REF requests and reads"): the customer's recorded
-- acceptance, and the platform's choice of enforcing it (NULL: enforced when the platform is not regulated).
ALTER TABLE "customers" ADD COLUMN "end_user_terms_consent" jsonb;
ALTER TABLE "platforms" ADD COLUMN "end_user_terms_required" boolean;

-- REF's reads on outgoing transactions: how the rail was chosen (AUTO | MANUAL), the rail's expected
-- time from creation to settlement when the payment was created, and the platform's receipt confirmation.
ALTER TABLE "transactions" ADD COLUMN "rail_selection_mode" text;
ALTER TABLE "transactions" ADD COLUMN "settlement_timeline_seconds" integer;
ALTER TABLE "transactions" ADD COLUMN "receipt_delivery_confirmed_at" timestamptz(3);
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_rail_selection_mode_check" CHECK ("rail_selection_mode" IN ('AUTO', 'MANUAL'));

-- REF's business enum values: a renaming once turned PUBLIC into REF in two values (REFLY_LISTED_COMPANY,
-- REF_ADMINISTRATION). Stored businesses get REF's names; requests are read with REF's names only.
UPDATE "customers" SET "business_info" = jsonb_set("business_info", '{entityType}', '"PUBLICLY_LISTED_COMPANY"')
  WHERE "business_info" ->> 'entityType' = 'REFLY_LISTED_COMPANY';
UPDATE "customers" SET "business_info" = jsonb_set("business_info", '{businessType}', '"PUBLIC_ADMINISTRATION"')
  WHERE "business_info" ->> 'businessType' = 'REF_ADMINISTRATION';
