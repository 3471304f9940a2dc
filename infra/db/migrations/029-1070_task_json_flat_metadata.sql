-- A task whose metadata is a flat object is stored whole too (migration 1060 stored whole only
-- `{}`): each member written as JSON.stringify writes the value V8's JSON.parse made of jsonb's
-- text, when PostgreSQL can tell what that is. Members come in jsonb's order, which is the order of
-- its text and so of JSON.parse's properties, unless a key is all digits (V8 lists integer-like keys
-- first, in numeric order): then the runs are stored. Strings are to_json's (the same escapes as
-- JSON.stringify), true, false and null as they are, numbers only as integers of at most 15 digits
-- (jsonb keeps `1.0` and `1e2` as written; JSON.stringify writes 1 and 100); a nested object or
-- array keeps the runs.
--
-- Only the function changes, so rows keep what they hold until their next write: a row with
-- metadata stored as runs before this is still answered right (the reader splices), just not as
-- fast. Both forms are the same JSON text once read.

CREATE OR REPLACE FUNCTION task_json_text(runs text, estimated_effort float8, actual_effort float8, metadata jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  members text := '';
  flat boolean := true;
BEGIN
  IF jsonb_typeof(metadata) IS DISTINCT FROM 'object'
     OR NOT (estimated_effort IS NULL OR (estimated_effort = trunc(estimated_effort) AND abs(estimated_effort) < 1e15))
     OR NOT (actual_effort IS NULL OR (actual_effort = trunc(actual_effort) AND abs(actual_effort) < 1e15)) THEN
    RETURN runs;
  END IF;
  IF metadata <> '{}'::jsonb THEN
    SELECT string_agg(to_json(e.key)::text || ':' || CASE jsonb_typeof(e.value) WHEN 'string' THEN to_json(e.value #>> '{}')::text ELSE e.value::text END,
                      ',' ORDER BY e.n),
           bool_and(e.key !~ '^[0-9]+$'
                    AND (jsonb_typeof(e.value) IN ('string', 'boolean', 'null')
                         OR (jsonb_typeof(e.value) = 'number' AND e.value::text ~ '^-?(0|[1-9][0-9]{0,14})$')))
      INTO members, flat
      FROM jsonb_each(metadata) WITH ORDINALITY AS e(key, value, n);
    IF NOT flat THEN
      RETURN runs;
    END IF;
  END IF;
  RETURN '{' || split_part(runs, chr(1), 1)
    || ',"estimated_effort":' || coalesce(estimated_effort::bigint::text, 'null')
    || ',"actual_effort":' || coalesce(actual_effort::bigint::text, 'null')
    || ',' || split_part(runs, chr(1), 2) || ',"metadata":{' || members || '},' || split_part(runs, chr(1), 3) || '}';
END
$$;
