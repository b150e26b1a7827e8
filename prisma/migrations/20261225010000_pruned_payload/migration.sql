-- Issue 29 (29d): what a webhook event keeps after its retention window (src/platform/retention.ts), as one
-- IMMUTABLE function. Citus refuses an UPDATE whose SET calls a STABLE function on a column ("STABLE functions
-- used in UPDATE queries cannot be called with column references"), even one routed to one shard, and
-- jsonb_build_object is STABLE (it may call any type's output function); over jsonb arguments it is a pure
-- function of them, so this wrapper is declared IMMUTABLE. The same expression as before.
CREATE FUNCTION svc_pruned_payload(data jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('id', data -> 'id', 'status', data -> 'status', 'type', data -> 'type'))
$$;
