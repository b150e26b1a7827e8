-- Issue 12: svc_balance_moves (migration 20261126020000) in PL/pgSQL. A SQL function kept from being
-- inlined by a SET clause is parsed and planned again on every call (perf: ~3% of Postgres's work on
-- the money path, in fmgr_sql and stringToNode); PL/pgSQL keeps its plan for the session and is never
-- inlined, so the planner still counts its rows as the declared ONE. (Its inputs are renamed: PL/pgSQL
-- refuses an input named like an output column, hence DROP and CREATE. Plans using the old function
-- are invalidated by the drop and made again.)
DROP FUNCTION svc_balance_moves(text[], text[], bigint[], bigint[], text[], jsonb[]);
CREATE FUNCTION svc_balance_moves(in_ids text[], in_currencies text[], in_available bigint[], in_held bigint[], in_event_ids text[], in_currency_json jsonb[])
  RETURNS TABLE (id text, currency text, available bigint, held bigint, event_id text, currency_json jsonb)
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1
  AS $$
BEGIN
  RETURN QUERY SELECT * FROM unnest(in_ids, in_currencies, in_available, in_held, in_event_ids, in_currency_json);
END
$$;
