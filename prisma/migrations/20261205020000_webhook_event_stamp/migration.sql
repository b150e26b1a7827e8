-- Issue 25: an event's timestamp is when it was recorded, not when its transaction began. Events written by
-- Prisma used to carry the application's clock and those written by raw SQL the transaction's start
-- (CURRENT_TIMESTAMP), so in one transaction a later event could be stamped earlier: a real-time-funded
-- payment's OUTGOING_PAYMENT.PROCESSING before the deposit's INTERNAL_ACCOUNT.BALANCE_UPDATED. Every
-- insert now leaves the stamp to the database (prisma/schema/platform.prisma: dbgenerated), statement by
-- statement (statement_timestamp(): rows of one statement share it and keep their id order), so timestamps
-- follow the order of recording and the relay's (created_at, id) order with them.
ALTER TABLE "webhook_events" ALTER COLUMN "created_at" SET DEFAULT statement_timestamp();
