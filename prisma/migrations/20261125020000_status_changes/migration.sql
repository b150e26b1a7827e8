-- One history of every lifecycle (issue 12 item 2): the four per-area history tables become one,
-- written by transition() (src/platform/state-machine.ts) in the transaction of the move it records.
-- `machine` names the lifecycle (customer, verification, card, transaction, refund, ...); a status
-- stored as NULL (a refund not started, a contact channel not required) is written as 'NONE';
-- `from_status` NULL is "no status before" (a row written at creation).
CREATE TABLE "status_changes" (
  "id"          TEXT NOT NULL,
  "platform_id" TEXT NOT NULL,
  "machine"     TEXT NOT NULL,
  "resource_id" TEXT NOT NULL,
  "event"       TEXT NOT NULL,
  "from_status" TEXT,
  "to_status"   TEXT NOT NULL,
  "reason"      TEXT,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "status_changes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "status_changes_platform_id_machine_resource_id_created_at_idx"
  ON "status_changes"("platform_id", "machine", "resource_id", "created_at");

-- Customer, beneficial owner, verification and contact-channel moves. A contact channel's absent
-- state (not required) was NULL there.
INSERT INTO "status_changes" ("id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "created_at")
SELECT "id", "platform_id", "machine", "resource_id", "event",
       CASE WHEN "machine" LIKE 'contact-channel%' THEN COALESCE("from_status", 'NONE') ELSE "from_status" END,
       COALESCE("to_status", 'NONE'), "created_at"
  FROM "onboarding_status_changes";

-- Card, SCA factor reset and stablecoin enablement moves.
INSERT INTO "status_changes" ("id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "created_at")
SELECT "id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "created_at"
  FROM "lifecycle_status_changes";

-- External account moves (their ids were bare UUIDv7s).
INSERT INTO "status_changes" ("id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "created_at")
SELECT 'StatusChange:' || "id", "platform_id", 'external-account', "external_account_id", "event", "from_status", "to_status", "created_at"
  FROM "external_account_status_changes";

-- Transaction and refund moves. The old table kept no event: it is recovered from the move and the
-- failure the transaction recorded (a FAILED transaction has exactly one way in per failure reason).
INSERT INTO "status_changes" ("id", "platform_id", "machine", "resource_id", "event", "from_status", "to_status", "reason", "created_at")
SELECT 'StatusChange:' || substr(c."id", strpos(c."id", ':') + 1), c."platform_id",
       CASE WHEN c."field" = 'status' THEN 'transaction' ELSE 'refund' END,
       c."transaction_id",
       CASE
         WHEN c."field" = 'refundStatus' THEN
           CASE WHEN c."from_status" IS NULL THEN 'start' WHEN c."to_status" = 'COMPLETED' THEN 'complete' ELSE 'fail' END
         WHEN c."to_status" = 'PENDING_AUTHORIZATION' THEN 'requireAuthorization'
         WHEN c."to_status" = 'PROCESSING' THEN CASE WHEN c."from_status" = 'PENDING_AUTHORIZATION' THEN 'authorize' ELSE 'execute' END
         WHEN c."to_status" = 'EXPIRED' THEN 'expire'
         WHEN c."to_status" = 'COMPLETED' THEN 'complete'
         WHEN c."to_status" = 'FAILED' THEN
           CASE
             WHEN t."failure_reason" = 'USER_CANCELLATION' AND c."from_status" <> 'COMPLETED' THEN 'cancel'
             WHEN c."from_status" = 'COMPLETED' THEN 'bankReturn'
             WHEN c."from_status" = 'PENDING_AUTHORIZATION' THEN 'authorizationExpired'
             WHEN c."from_status" = 'PENDING' THEN 'reject'
             ELSE 'fail'
           END
         ELSE 'unknown'
       END,
       CASE WHEN c."field" = 'refundStatus' THEN COALESCE(c."from_status", 'NONE') ELSE c."from_status" END,
       c."to_status", c."reason", c."created_at"
  FROM "transaction_status_changes" c
  JOIN "transactions" t ON t."id" = c."transaction_id";

DROP TABLE "onboarding_status_changes";
DROP TABLE "lifecycle_status_changes";
DROP TABLE "external_account_status_changes";
DROP TABLE "transaction_status_changes";
