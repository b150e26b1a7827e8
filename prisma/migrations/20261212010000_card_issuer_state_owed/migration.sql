-- Issue 27: a card state the issuer has not acknowledged yet is owed to it, recorded here (not in a
-- queue): set with the state change, cleared when the issuer accepts it, pushed again with backoff by
-- the card sweep while it fails (src/domains/cards/card-issuing.service.ts pushCardState).
ALTER TABLE "cards" ADD COLUMN "issuer_state_due_at" TIMESTAMPTZ(3), ADD COLUMN "issuer_state_attempts" INTEGER NOT NULL DEFAULT 0;
CREATE INDEX "cards_issuer_state_due_idx" ON "cards"("issuer_state_due_at") WHERE "issuer_state_due_at" IS NOT NULL;
