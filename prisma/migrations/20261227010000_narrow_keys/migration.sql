-- Issue 30 (30c): narrower keys and a smaller cut-down event (docs/decisions.md, 30c).

-- 1. List indexes keyed by a customer's or an account's id leave platform_id out (as 30b did for the
--    resource-id keys): the id names one customer or account of one platform (random, globally unique), so
--    the rows found are that platform's; the list checks the platform on them (a harmless filter, as
--    test/platform/plans.test.ts counts it). Each entry is ~48 bytes narrower. Only rows that have the value
--    are indexed; the platform's own payments (customer_id NULL: `customerId=<platform id>`) get their own
--    partial indexes, which keep platform_id (NULL is every platform's). source_account_id keeps platform_id:
--    incoming payments come from system clearing accounts shared by every platform.
DROP INDEX IF EXISTS "transactions_platform_id_customer_id_id_idx";
DROP INDEX IF EXISTS "transactions_platform_id_customer_id_status_id_idx";
DROP INDEX IF EXISTS "transactions_platform_id_destination_account_id_id_idx";
CREATE INDEX "transactions_customer_id_id_idx" ON "transactions"("customer_id", "id") WHERE "customer_id" IS NOT NULL;
CREATE INDEX "transactions_customer_id_status_id_idx" ON "transactions"("customer_id", "status", "id") WHERE "customer_id" IS NOT NULL;
CREATE INDEX "transactions_platform_own_id_idx" ON "transactions"("platform_id", "id") WHERE "customer_id" IS NULL;
CREATE INDEX "transactions_platform_own_status_id_idx" ON "transactions"("platform_id", "status", "id") WHERE "customer_id" IS NULL;
CREATE INDEX "transactions_destination_account_id_id_idx" ON "transactions"("destination_account_id", "id") WHERE "destination_account_id" IS NOT NULL;

DROP INDEX IF EXISTS "quotes_platform_id_customer_id_id_idx";
DROP INDEX IF EXISTS "quotes_platform_id_destination_account_id_id_idx";
CREATE INDEX "quotes_customer_id_id_idx" ON "quotes"("customer_id", "id") WHERE "customer_id" IS NOT NULL;
CREATE INDEX "quotes_platform_own_id_idx" ON "quotes"("platform_id", "id") WHERE "customer_id" IS NULL;
CREATE INDEX "quotes_destination_account_id_id_idx" ON "quotes"("destination_account_id", "id") WHERE "destination_account_id" IS NOT NULL;

-- 2. A resource's status changes by its id alone: nothing reads them in time order through the index (a
--    resource has a handful; readers sort them), and without created_at in the key B-tree deduplication keeps
--    one key and a list of row pointers per resource.
DROP INDEX IF EXISTS "status_changes_resource_id_created_at_idx";
CREATE INDEX "status_changes_resource_id_idx" ON "status_changes"("resource_id");

-- 3. A cut-down event (src/platform/retention.ts) keeps its resource's id only in resource_id, no longer in
--    its payload too: the insert trigger keeps a resource_id given with a payload that has no id (a copy of
--    an event written already cut down, as the growth bench writes them).
CREATE OR REPLACE FUNCTION svc_webhook_event_born() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  NEW.resource_id := coalesce(NEW.data ->> 'id', NEW.resource_id);
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
