-- Issue 25: REF's DAILY_VOLUME_LIMIT_EXCEEDED (429): a per-platform, per-corridor limit on the volume executed in one
-- UTC day (src/domains/limits). The usage row is moved by one conditional upsert, so concurrent executions never
-- pass more than the limit together; the CHECKs hold it in the database too.
CREATE TABLE "daily_volume_limits" (
  "platform_id"        TEXT NOT NULL,
  "sending_currency"   TEXT NOT NULL,
  "receiving_currency" TEXT NOT NULL,
  "limit_amount"       BIGINT NOT NULL CHECK ("limit_amount" >= 0),
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY ("platform_id", "sending_currency", "receiving_currency")
);

CREATE TABLE "daily_volume_usage" (
  "platform_id"        TEXT NOT NULL,
  "sending_currency"   TEXT NOT NULL,
  "receiving_currency" TEXT NOT NULL,
  "day"                DATE NOT NULL,
  "used_amount"        BIGINT NOT NULL CHECK ("used_amount" >= 0),
  PRIMARY KEY ("platform_id", "sending_currency", "receiving_currency", "day")
);
