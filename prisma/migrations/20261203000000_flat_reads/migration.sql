-- Issue 30: flat as the data grows. Every list filter gets an index that also gives the list's order
-- (platform_id, the filter, then the sort key), so a page costs the same at 10 thousand and at 2 million
-- rows; every sweep reads through a partial index over the rows that are due, so an idle service reads
-- nothing. test/platform/plans.test.ts guards the plans.

-- Transactions. The list orders by id (UUIDv7), or by (created_at, id) when a time window is given.
CREATE INDEX "transactions_platform_id_created_at_id_idx" ON "transactions"("platform_id", "created_at", "id");
CREATE INDEX "transactions_platform_id_type_id_idx" ON "transactions"("platform_id", "type", "id");
CREATE INDEX "transactions_platform_id_customer_id_status_id_idx" ON "transactions"("platform_id", "customer_id", "status", "id");
-- `currency` and `accountIdentifier` match either side: one index per side, the list merges the two
-- ordered scans (src/platform/sql/keyset-union.ts).
CREATE INDEX "transactions_platform_id_sending_currency_id_idx" ON "transactions"("platform_id", "sending_currency", "id");
CREATE INDEX "transactions_platform_id_receiving_currency_id_idx" ON "transactions"("platform_id", "receiving_currency", "id");
CREATE INDEX "transactions_platform_id_source_account_id_id_idx" ON "transactions"("platform_id", "source_account_id", "id");
CREATE INDEX "transactions_platform_id_destination_account_id_id_idx" ON "transactions"("platform_id", "destination_account_id", "id");
CREATE INDEX "transactions_refund_reference_idx" ON "transactions"("refund_reference") WHERE "refund_reference" IS NOT NULL;
-- Sweeps: refunds owed (sweepPaymentWork), payments watched for a bank return (claimDuePayments). The
-- old (status, reconcile_after) index held every completed payout ever: the claim walked all of them.
CREATE INDEX "transactions_refund_pending_idx" ON "transactions"("updated_at") WHERE "refund_status" = 'PENDING';
DROP INDEX "transactions_status_reconcile_after_idx";
CREATE INDEX "transactions_processing_reconcile_idx" ON "transactions"("reconcile_after")
  WHERE "status" = 'PROCESSING' AND "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL';
CREATE INDEX "transactions_completed_watch_idx" ON "transactions"("settled_at")
  WHERE "status" = 'COMPLETED' AND "rail_reference" IS NOT NULL AND "destination_kind" <> 'INTERNAL';

-- Quotes: the list's filters; the expiry sweep reads PENDING quotes only.
CREATE INDEX "quotes_platform_id_id_idx" ON "quotes"("platform_id", "id");
CREATE INDEX "quotes_platform_id_customer_id_id_idx" ON "quotes"("platform_id", "customer_id", "id");
CREATE INDEX "quotes_platform_id_status_id_idx" ON "quotes"("platform_id", "status", "id");
CREATE INDEX "quotes_platform_id_created_at_id_idx" ON "quotes"("platform_id", "created_at", "id");
CREATE INDEX "quotes_platform_id_source_account_id_id_idx" ON "quotes"("platform_id", "source_account_id", "id");
CREATE INDEX "quotes_platform_id_destination_account_id_id_idx" ON "quotes"("platform_id", "destination_account_id", "id");
DROP INDEX "quotes_platform_id_status_expires_at_idx";
CREATE INDEX "quotes_pending_expiry_idx" ON "quotes"("expires_at") WHERE "status" IN ('PENDING', 'PENDING_AUTHORIZATION');

-- Webhook events: the resource an event is about as a real column (the dashboard's payment page lists a
-- transaction's events by it), set from the payload's `id` as the row is inserted by the insert trigger
-- of 20261126000000 (every insert path gets it, none has to name it), filled here for existing rows.
-- Retention (src/platform/retention.ts) cuts old payloads down; the column stays.
ALTER TABLE "webhook_events" ADD COLUMN "resource_id" TEXT;
UPDATE "webhook_events" SET "resource_id" = "data" ->> 'id' WHERE "data" ? 'id';
CREATE OR REPLACE FUNCTION svc_webhook_event_born() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NEW.resource_id := NEW.data ->> 'id';
  IF NEW.relayed_at IS NULL AND NEW.delivery_status = 'PENDING'
     AND NOT EXISTS (SELECT 1 FROM platforms p WHERE p.id = NEW.platform_id AND p.webhook_endpoint IS NOT NULL) THEN
    NEW.delivery_status := 'UNDELIVERABLE';
    NEW.relayed_at := NEW.created_at;
    NEW.retry_window_started_at := NEW.created_at;
    NEW.next_attempt_at := NULL;
    NEW.last_error := 'WEBHOOK_ENDPOINT_NOT_SET';
  END IF;
  RETURN NEW;
END
$$;
-- Resource ids are unique across platforms: the index needs no platform_id (45 bytes less per event);
-- the list still checks the platform on the few rows of the resource.
CREATE INDEX "webhook_events_resource_id_id_idx" ON "webhook_events"("resource_id", "id");
CREATE INDEX "webhook_events_platform_id_type_id_idx" ON "webhook_events"("platform_id", "type", "id");
-- By delivery status: the ones people look for (failed, still owed); DELIVERED and UNDELIVERABLE are
-- most events, a list of them walks the platform's events and finds them at once.
CREATE INDEX "webhook_events_platform_id_delivery_status_id_idx" ON "webhook_events"("platform_id", "delivery_status", "id") WHERE "delivery_status" IN ('FAILED', 'PENDING');
CREATE INDEX "webhook_events_platform_id_id_idx" ON "webhook_events"("platform_id", "id");
-- Retention: events whose payload is still whole, oldest first (pruned in bounded batches).
ALTER TABLE "webhook_events" ADD COLUMN "pruned_at" TIMESTAMPTZ(3);
CREATE INDEX "webhook_events_unpruned_idx" ON "webhook_events"("created_at") WHERE "pruned_at" IS NULL;
CREATE INDEX "webhook_attempts_attempted_at_idx" ON "webhook_attempts"("attempted_at");

-- Cards, agents, verifications, external accounts: their documented filters, in the list's order.
DROP INDEX "cards_platform_id_state_idx";
CREATE INDEX "cards_platform_id_state_id_idx" ON "cards"("platform_id", "state", "id");
CREATE INDEX "agents_platform_id_customer_id_id_idx" ON "agents"("platform_id", "customer_id", "id");
CREATE INDEX "verifications_platform_id_status_id_idx" ON "verifications"("platform_id", "status", "id");
CREATE INDEX "external_accounts_platform_id_id_idx" ON "external_accounts"("platform_id", "id");
CREATE INDEX "external_accounts_platform_id_currency_id_idx" ON "external_accounts"("platform_id", "currency", "id");
