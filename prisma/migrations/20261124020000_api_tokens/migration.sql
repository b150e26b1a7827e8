-- API tokens (issue 13, tokens.*): platform credentials get a name and an update time, and are
-- exposed as REF's `Token:<uuid>` resources. Existing credentials (created by the CLI) keep their
-- uuid under the new prefix; nothing references credential ids (rate-limit keys expire by themselves).
ALTER TABLE "platform_credentials" ADD COLUMN "name" TEXT NOT NULL DEFAULT 'Platform credential';
ALTER TABLE "platform_credentials" ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "platform_credentials" SET "updated_at" = "created_at";
UPDATE "platform_credentials" SET "id" = 'Token:' || substring("id" from 12) WHERE "id" LIKE 'Credential:%';

-- Lists read a platform's live tokens newest first.
CREATE INDEX "platform_credentials_platform_id_id_idx" ON "platform_credentials"("platform_id", "id");
