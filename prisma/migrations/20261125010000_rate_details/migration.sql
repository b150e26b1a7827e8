-- Issue 13: REF's `rateDetails` on quotes and their transactions. The fee split is fixed when the
-- quote is priced and kept on both rows, so the quote and its transaction (and every webhook of it)
-- show the same breakdown later. Null on rows priced before this migration: they have no breakdown.
--   platform_*  the platform's fee: fixed part and variable part (rate in bps, amount in minor units)
--   service_*   the service's own fee, likewise
--   counterparty_fixed_fee   what the counterparty takes, receiving-currency minor units
--   counterparty_multiplier  receiving minor units per unit of the intermediate (decimal string)
--   sending_multiplier       intermediate units per sending minor unit after variable fees (decimal string)
-- All sending-currency amounts are minor units of the sending currency.
ALTER TABLE "quotes"
  ADD COLUMN "platform_fixed_fee"         BIGINT  CHECK ("platform_fixed_fee" >= 0),
  ADD COLUMN "platform_variable_fee_bps"  INTEGER CHECK ("platform_variable_fee_bps" BETWEEN 0 AND 10000),
  ADD COLUMN "platform_variable_fee"      BIGINT  CHECK ("platform_variable_fee" >= 0),
  ADD COLUMN "service_fixed_fee"          BIGINT  CHECK ("service_fixed_fee" >= 0),
  ADD COLUMN "service_variable_fee_bps"   INTEGER CHECK ("service_variable_fee_bps" BETWEEN 0 AND 10000),
  ADD COLUMN "service_variable_fee"       BIGINT  CHECK ("service_variable_fee" >= 0),
  ADD COLUMN "counterparty_fixed_fee"     BIGINT  CHECK ("counterparty_fixed_fee" >= 0),
  ADD COLUMN "counterparty_multiplier"    TEXT,
  ADD COLUMN "sending_multiplier"         TEXT,
  ADD CONSTRAINT "quotes_fee_split_whole" CHECK (num_nulls("platform_fixed_fee", "platform_variable_fee_bps", "platform_variable_fee", "service_fixed_fee", "service_variable_fee_bps", "service_variable_fee", "counterparty_fixed_fee", "counterparty_multiplier", "sending_multiplier") IN (0, 9)),
  ADD CONSTRAINT "quotes_fee_split_sums" CHECK ("platform_fixed_fee" IS NULL OR ("platform_fixed_fee" + "platform_variable_fee" = "platform_fees_included" AND "service_fixed_fee" + "service_variable_fee" = "service_fees_included"));

ALTER TABLE "transactions"
  ADD COLUMN "platform_fixed_fee"         BIGINT  CHECK ("platform_fixed_fee" >= 0),
  ADD COLUMN "platform_variable_fee_bps"  INTEGER CHECK ("platform_variable_fee_bps" BETWEEN 0 AND 10000),
  ADD COLUMN "platform_variable_fee"      BIGINT  CHECK ("platform_variable_fee" >= 0),
  ADD COLUMN "service_fixed_fee"          BIGINT  CHECK ("service_fixed_fee" >= 0),
  ADD COLUMN "service_variable_fee_bps"   INTEGER CHECK ("service_variable_fee_bps" BETWEEN 0 AND 10000),
  ADD COLUMN "service_variable_fee"       BIGINT  CHECK ("service_variable_fee" >= 0),
  ADD COLUMN "counterparty_fixed_fee"     BIGINT  CHECK ("counterparty_fixed_fee" >= 0),
  ADD COLUMN "counterparty_multiplier"    TEXT,
  ADD COLUMN "sending_multiplier"         TEXT,
  -- REF's OutgoingTransaction.paymentInstructions: the quote's funding instructions, copied at creation.
  ADD COLUMN "payment_instructions"       JSONB,
  ADD CONSTRAINT "transactions_fee_split_whole" CHECK (num_nulls("platform_fixed_fee", "platform_variable_fee_bps", "platform_variable_fee", "service_fixed_fee", "service_variable_fee_bps", "service_variable_fee", "counterparty_fixed_fee", "counterparty_multiplier", "sending_multiplier") IN (0, 9)),
  ADD CONSTRAINT "transactions_fee_split_sums" CHECK ("platform_fixed_fee" IS NULL OR ("platform_fixed_fee" + "platform_variable_fee" = "platform_fees" AND "service_fixed_fee" + "service_variable_fee" = "service_fees"));

-- Transactions of existing quotes show their quote's instructions (an empty list for prefunded ones).
UPDATE "transactions" t SET "payment_instructions" = q."payment_instructions"
  FROM "quotes" q WHERE q."transaction_id" = t."id" AND q."payment_instructions" IS NOT NULL;
