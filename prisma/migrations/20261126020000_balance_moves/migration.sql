-- Issue 12: the balance moves of a one-statement write (src/domains/ledger/ledger.sql.ts), as rows the
-- planner takes for ONE: each account is then found by its primary key. Through a bare unnest() a
-- prepared statement's generic plan counts ten rows and scans a small accounts table whole instead
-- (every payment: a scan of the platform's accounts). The SET clause keeps the function from being
-- inlined, which would bring unnest()'s estimate back.
CREATE OR REPLACE FUNCTION svc_balance_moves(ids text[], currencies text[], available bigint[], held bigint[], event_ids text[], currency_json jsonb[])
  RETURNS TABLE (id text, currency text, available bigint, held bigint, event_id text, currency_json jsonb)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
  SET search_path = pg_catalog
  AS $$ SELECT * FROM unnest(ids, currencies, available, held, event_ids, currency_json) $$;
