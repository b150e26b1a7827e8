-- Issue 29 (29f): the daily volume's usage row carries the limit its last claim was counted against, so the
-- conditional upsert compares with EXCLUDED.limit_amount (a value the statement computes) instead of reading
-- daily_volume_limits in its ON CONFLICT ... WHERE: Citus refuses a subquery there (it would run a distributed
-- query from the shard). The rule stays in the one upsert (src/domains/limits/daily-volume.repo.ts); the CHECK
-- holds it in the database too. Rows counted before this migration keep NULL until their next claim.
ALTER TABLE "daily_volume_usage"
  ADD COLUMN "limit_amount" BIGINT,
  ADD CONSTRAINT "daily_volume_usage_within_limit" CHECK ("limit_amount" IS NULL OR "used_amount" <= "limit_amount");
