-- Issues 29 and 30 (29d, 30c): the retention payload (svc_pruned_payload, 20261225010000) no longer keeps the
-- resource's id, which is the row's resource_id (the events log lists it as {id, type, status}, 30c). Still
-- one IMMUTABLE function, as Citus needs in an UPDATE's SET (29d).
CREATE OR REPLACE FUNCTION svc_pruned_payload(data jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('status', data -> 'status', 'type', data -> 'type'))
$$;
