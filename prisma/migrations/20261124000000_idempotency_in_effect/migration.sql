-- Issue 11: the idempotency record is written by the transaction that commits the request's effect
-- (state COMMITTED, with the created resource's id), then completed with the response (DONE).
-- IN_PROGRESS claims committed ahead of the effect are gone: an unfinished request leaves no row.
ALTER TABLE "idempotency_records" ADD COLUMN "resource_id" TEXT;
DELETE FROM "idempotency_records" WHERE "state" = 'IN_PROGRESS';
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_state_check" CHECK ("state" IN ('COMMITTED', 'DONE'));
