-- Issue 27: REF's `cardTokenization2faConfig` on PATCH/GET /config (branding and sender settings of the
-- codes a cardholder receives when adding a card to a digital wallet), kept as the platform sent it.
ALTER TABLE "platforms" ADD COLUMN "card_tokenization_2fa_config" JSONB;
