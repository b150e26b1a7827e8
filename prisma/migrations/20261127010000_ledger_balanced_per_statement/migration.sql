-- Issue 12: every journal balances per currency, checked once per statement that writes entries
-- (its new rows as a transition table) instead of once per entry at commit. Both writers of entries —
-- postJournal's createMany and the money path's one-statement insert — write a journal and all its
-- entries in one statement, so each statement must leave the journals it touched balanced. The
-- per-entry deferred check ran its query again for every entry of a journal (4-5 per payment) and
-- queued an event per row until commit. test/payments/ledger-guards.test.ts.
DROP TRIGGER "ledger_entries_balanced" ON "ledger_entries";
DROP FUNCTION ledger_check_journal_balanced();
CREATE FUNCTION ledger_check_journals_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  unbalanced text;
BEGIN
  SELECT e.journal_id INTO unbalanced
    FROM ledger_entries e
   WHERE e.journal_id IN (SELECT DISTINCT n.journal_id FROM new_entries n)
   GROUP BY e.journal_id, e.currency
  HAVING SUM(e.amount) <> 0
   LIMIT 1;
  IF unbalanced IS NOT NULL THEN
    RAISE EXCEPTION 'ledger journal % does not balance', unbalanced USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "ledger_entries_balanced" AFTER INSERT ON "ledger_entries"
  REFERENCING NEW TABLE AS new_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_journals_balanced();
