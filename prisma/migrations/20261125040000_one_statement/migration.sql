-- Issue 12: the guard of one-statement writes (src/platform/one-statement.ts). A data-modifying CTE
-- chain asserts each guard's row count with it; a failed guard raises SQLSTATE SV001 carrying the
-- guard's code, which aborts the statement and every write of it.
CREATE OR REPLACE FUNCTION svc_assert(ok boolean, code text) RETURNS boolean
  LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'SV001', MESSAGE = code;
  END IF;
  RETURN true;
END
$$;
