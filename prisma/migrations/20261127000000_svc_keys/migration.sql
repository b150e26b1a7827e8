-- Issue 12: svc_keys(keys) is its argument, as a STABLE PL/pgSQL function. A statement that finds
-- rows by `id = ANY(svc_keys($n))` gets the same row estimate (the planner's default for an array it
-- cannot see) whether Postgres plans it for this call's values or once for any: an array parameter
-- seen in a fresh plan gives its real length, so the fresh plan of a small batch always looked cheaper
-- than the generic one and the statement was planned again on every call (the payments worker's
-- claim: as many plans as calls). Not inlined (PL/pgSQL) and not folded at plan time (STABLE); the
-- index scan evaluates it once, when it starts.
CREATE FUNCTION svc_keys(keys text[]) RETURNS text[]
  LANGUAGE plpgsql STABLE PARALLEL SAFE
  AS $$
BEGIN
  RETURN keys;
END
$$;
