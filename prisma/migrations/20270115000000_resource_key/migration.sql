-- Issue 30 (30f): the key a resource's id is stored under where rows are only found by it, never shown
-- (webhook events' resource_id, status changes' resource_id, ledger journals' reference_id): the uuid of
-- `<Type>:<uuid>`, a bare uuid itself (ids stored as uuid: `svc_resource_key(id::text)`), or the MD5 of any
-- other id as a uuid. src/platform/ids.ts resourceKey computes the same.
-- IMMUTABLE: usable in an index, a trigger, a USING clause, and in Citus's UPDATE … SET (29d).
CREATE OR REPLACE FUNCTION svc_resource_key(id text) RETURNS uuid LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN id ~ '^[A-Za-z]+:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'
      THEN substr(id, strpos(id, ':') + 1)::uuid
    WHEN id ~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' THEN id::uuid
    ELSE md5(id)::uuid
  END
$$;
