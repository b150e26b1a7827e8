-- Issue 27 (27e): retention's index holds only the events it may prune. Retention never cuts a PENDING
-- event's payload (it is still owed a delivery), yet every event was born into this index: a card approval
-- wrote two entries here in its own statement, and the relay's update (non-HOT: relayed_at is in the
-- relay's and the sweep's predicates) a second one per event. An event now enters it when it leaves
-- PENDING (DELIVERED, FAILED, UNDELIVERABLE — that update is non-HOT too), which is when retention may
-- take it. Events born UNDELIVERABLE (no endpoint) are indexed at birth as before.
DROP INDEX IF EXISTS "webhook_events_unpruned_idx";
CREATE INDEX "webhook_events_unpruned_idx" ON "webhook_events"("created_at") WHERE "pruned_at" IS NULL AND "delivery_status" <> 'PENDING';
