-- Issue 30 (30c): the keys of the rows nobody names outside the database — ledger journals and entries,
-- status changes — stored as `uuid` (16 bytes) instead of `Type:<uuid>` text (45–50 bytes). Each of these
-- ids sits in its row and in its primary key (and a journal's id again in each of its entries and their
-- journal index): ~1 KB less per payment at rest (docs/decisions.md, 30c). The service makes them bare
-- UUIDv7s (newUuid, src/platform/ids.ts), still time-ordered. Every other id (the API's) stays text.
--
-- Rewrites the three tables (ALTER COLUMN … TYPE holds an ACCESS EXCLUSIVE lock while it copies them; on a
-- large database plan it for a quiet window: docs/deploy.md, 30c). No row trigger fires (the append-only
-- guards see no UPDATE).

-- The entries' foreign key pairs (platform_id, journal_id) with the journal's key: both change together.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_platform_id_journal_id_fkey";

ALTER TABLE "ledger_journals"
  ALTER COLUMN "id" TYPE uuid USING substring("id" from '[0-9a-fA-F-]{36}$')::uuid;

ALTER TABLE "ledger_entries"
  ALTER COLUMN "id" TYPE uuid USING substring("id" from '[0-9a-fA-F-]{36}$')::uuid,
  ALTER COLUMN "journal_id" TYPE uuid USING substring("journal_id" from '[0-9a-fA-F-]{36}$')::uuid;

ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_platform_id_journal_id_fkey"
  FOREIGN KEY ("platform_id", "journal_id") REFERENCES "ledger_journals"("platform_id", "id") ON DELETE RESTRICT;

ALTER TABLE "status_changes"
  ALTER COLUMN "id" TYPE uuid USING substring("id" from '[0-9a-fA-F-]{36}$')::uuid;
