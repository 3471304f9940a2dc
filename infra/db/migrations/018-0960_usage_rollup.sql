-- Run usage rolled up per UTC day x agent x project x workflow type x billing mode, so
-- that cost analytics, budget spend and the dispatch headroom probe read a few thousand rows
-- instead of every run of their window. A cache of run usage, never a second truth: the raw
-- aggregate over workflow_runs is what it must equal (a test holds it to that), and
-- `run_usage_rebuild()` (POST /api/costs/rebuild, restore) recomputes it from the runs.
--
-- Written in the same transaction as every write of a run, without a lock any two writers share:
-- statement triggers append the signed change of a statement's runs to run_usage_delta (an insert
-- only: no row two transactions wait for, no deadlock), and `run_usage_compact()` (each dispatcher
-- tick) folds committed deltas into run_usage_daily. Readers read both tables in one snapshot.
--
-- A run counts as coalesce(owner, target) agent (or ''), its task's project (or ''), on the UTC day
-- of coalesce(reported_at, started_at, created_at): the attribution of core/costs/usage.ts. The
-- project is looked up at write time; a task that changes project or is deleted moves its runs'
-- usage with it (row triggers on tasks, before the foreign key clears the runs' task_id). The
-- department is not kept: readers join the agent's profile, so a profile that moves takes its
-- agent's history with it, as the raw aggregate does.
--
-- The SQL below is the text that ran when this migration landed, which TypeScript helpers then wrote
-- out (the measures, the grouping key and the delta INSERT, repeated per trigger): hence its repeats
-- and the lines that hold only spaces. Written out here, it stays byte for byte what databases ran.

CREATE TABLE run_usage_daily (
  day date NOT NULL,
  agent_id text NOT NULL,
  project_id text NOT NULL,
  workflow_type text NOT NULL,
  billing text NOT NULL,
  runs bigint NOT NULL,
  cost numeric NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  unpriced_runs bigint NOT NULL,
  unpriced_input bigint NOT NULL,
  unpriced_output bigint NOT NULL,
  PRIMARY KEY (day, agent_id, project_id, workflow_type, billing)
);

CREATE TABLE run_usage_delta (
  id bigserial PRIMARY KEY,
  day date NOT NULL,
  agent_id text NOT NULL,
  project_id text NOT NULL,
  workflow_type text NOT NULL,
  billing text NOT NULL,
  runs bigint NOT NULL,
  cost numeric NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  unpriced_runs bigint NOT NULL,
  unpriced_input bigint NOT NULL,
  unpriced_output bigint NOT NULL
);
CREATE INDEX run_usage_delta_day ON run_usage_delta (day);


CREATE FUNCTION run_usage_after_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  
  INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs), sum(cost), sum(input_tokens), sum(output_tokens), sum(unpriced_runs), sum(unpriced_input), sum(unpriced_output)
    FROM (SELECT 
         (coalesce(d.reported_at, d.started_at, d.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(d.owner_agent_id, d.target_agent_id, '') AS agent_id,
         coalesce(t.project_id::text, '') AS project_id,
         d.workflow_type,
         CASE WHEN d.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         d.sign AS runs,
         d.sign * coalesce(d.cost_estimate, 0)::numeric AS cost,
         d.sign * coalesce(d.input_tokens, 0) AS input_tokens,
         d.sign * coalesce(d.output_tokens, 0) AS output_tokens,
         d.sign * (d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0)::int AS unpriced_runs,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.input_tokens, 0) ELSE 0 END AS unpriced_input,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.output_tokens, 0) ELSE 0 END AS unpriced_output
            FROM (SELECT 1 AS sign, n.* FROM run_usage_new n) d LEFT JOIN tasks t ON t.id = d.task_id) c
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(runs) <> 0 OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(unpriced_runs) <> 0;
  RETURN NULL;
END $fn$;

CREATE FUNCTION run_usage_after_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  
  INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs), sum(cost), sum(input_tokens), sum(output_tokens), sum(unpriced_runs), sum(unpriced_input), sum(unpriced_output)
    FROM (SELECT 
         (coalesce(d.reported_at, d.started_at, d.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(d.owner_agent_id, d.target_agent_id, '') AS agent_id,
         coalesce(t.project_id::text, '') AS project_id,
         d.workflow_type,
         CASE WHEN d.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         d.sign AS runs,
         d.sign * coalesce(d.cost_estimate, 0)::numeric AS cost,
         d.sign * coalesce(d.input_tokens, 0) AS input_tokens,
         d.sign * coalesce(d.output_tokens, 0) AS output_tokens,
         d.sign * (d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0)::int AS unpriced_runs,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.input_tokens, 0) ELSE 0 END AS unpriced_input,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.output_tokens, 0) ELSE 0 END AS unpriced_output
            FROM (SELECT 1 AS sign, n.* FROM run_usage_new n UNION ALL SELECT -1, o.* FROM run_usage_old o) d LEFT JOIN tasks t ON t.id = d.task_id) c
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(runs) <> 0 OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(unpriced_runs) <> 0;
  RETURN NULL;
END $fn$;

CREATE FUNCTION run_usage_after_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  
  INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs), sum(cost), sum(input_tokens), sum(output_tokens), sum(unpriced_runs), sum(unpriced_input), sum(unpriced_output)
    FROM (SELECT 
         (coalesce(d.reported_at, d.started_at, d.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(d.owner_agent_id, d.target_agent_id, '') AS agent_id,
         coalesce(t.project_id::text, '') AS project_id,
         d.workflow_type,
         CASE WHEN d.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         d.sign AS runs,
         d.sign * coalesce(d.cost_estimate, 0)::numeric AS cost,
         d.sign * coalesce(d.input_tokens, 0) AS input_tokens,
         d.sign * coalesce(d.output_tokens, 0) AS output_tokens,
         d.sign * (d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0)::int AS unpriced_runs,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.input_tokens, 0) ELSE 0 END AS unpriced_input,
         d.sign * CASE WHEN d.cost_estimate IS NULL AND coalesce(d.input_tokens, 0) + coalesce(d.output_tokens, 0) > 0 THEN coalesce(d.output_tokens, 0) ELSE 0 END AS unpriced_output
            FROM (SELECT -1 AS sign, o.* FROM run_usage_old o) d LEFT JOIN tasks t ON t.id = d.task_id) c
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(runs) <> 0 OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(unpriced_runs) <> 0;
  RETURN NULL;
END $fn$;

CREATE TRIGGER run_usage_insert AFTER INSERT ON workflow_runs REFERENCING NEW TABLE AS run_usage_new
  FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_insert();
CREATE TRIGGER run_usage_update AFTER UPDATE ON workflow_runs REFERENCING OLD TABLE AS run_usage_old NEW TABLE AS run_usage_new
  FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_update();
CREATE TRIGGER run_usage_delete AFTER DELETE ON workflow_runs REFERENCING OLD TABLE AS run_usage_old
  FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_delete();

CREATE FUNCTION run_usage_task_moved() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  
  INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs), sum(cost), sum(input_tokens), sum(output_tokens), sum(unpriced_runs), sum(unpriced_input), sum(unpriced_output)
    FROM (SELECT 
         (coalesce(r.reported_at, r.started_at, r.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(r.owner_agent_id, r.target_agent_id, '') AS agent_id,
         coalesce(OLD.project_id::text, '') AS project_id,
         r.workflow_type,
         CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         -1 AS runs,
         -1 * coalesce(r.cost_estimate, 0)::numeric AS cost,
         -1 * coalesce(r.input_tokens, 0) AS input_tokens,
         -1 * coalesce(r.output_tokens, 0) AS output_tokens,
         -1 * (r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0)::int AS unpriced_runs,
         -1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
         -1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output FROM workflow_runs r WHERE r.task_id = OLD.id
          UNION ALL
          SELECT 
         (coalesce(r.reported_at, r.started_at, r.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(r.owner_agent_id, r.target_agent_id, '') AS agent_id,
         coalesce(NEW.project_id::text, '') AS project_id,
         r.workflow_type,
         CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         1 AS runs,
         1 * coalesce(r.cost_estimate, 0)::numeric AS cost,
         1 * coalesce(r.input_tokens, 0) AS input_tokens,
         1 * coalesce(r.output_tokens, 0) AS output_tokens,
         1 * (r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0)::int AS unpriced_runs,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output FROM workflow_runs r WHERE r.task_id = OLD.id) c
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(runs) <> 0 OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(unpriced_runs) <> 0;
  RETURN NULL;
END $fn$;
CREATE TRIGGER run_usage_task_project AFTER UPDATE OF project_id ON tasks
  FOR EACH ROW WHEN (OLD.project_id IS DISTINCT FROM NEW.project_id) EXECUTE FUNCTION run_usage_task_moved();

-- before the row goes (and with it the foreign key's clearing of the runs' task_id, which then changes nothing here)
CREATE FUNCTION run_usage_task_deleted() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  
  INSERT INTO run_usage_delta (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs), sum(cost), sum(input_tokens), sum(output_tokens), sum(unpriced_runs), sum(unpriced_input), sum(unpriced_output)
    FROM (SELECT 
         (coalesce(r.reported_at, r.started_at, r.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(r.owner_agent_id, r.target_agent_id, '') AS agent_id,
         coalesce(OLD.project_id::text, '') AS project_id,
         r.workflow_type,
         CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         -1 AS runs,
         -1 * coalesce(r.cost_estimate, 0)::numeric AS cost,
         -1 * coalesce(r.input_tokens, 0) AS input_tokens,
         -1 * coalesce(r.output_tokens, 0) AS output_tokens,
         -1 * (r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0)::int AS unpriced_runs,
         -1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
         -1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output FROM workflow_runs r WHERE r.task_id = OLD.id
          UNION ALL
          SELECT 
         (coalesce(r.reported_at, r.started_at, r.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(r.owner_agent_id, r.target_agent_id, '') AS agent_id,
         '' AS project_id,
         r.workflow_type,
         CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         1 AS runs,
         1 * coalesce(r.cost_estimate, 0)::numeric AS cost,
         1 * coalesce(r.input_tokens, 0) AS input_tokens,
         1 * coalesce(r.output_tokens, 0) AS output_tokens,
         1 * (r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0)::int AS unpriced_runs,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output FROM workflow_runs r WHERE r.task_id = OLD.id) c
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(runs) <> 0 OR sum(cost) <> 0 OR sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(unpriced_runs) <> 0;
  RETURN OLD;
END $fn$;
CREATE TRIGGER run_usage_task_delete BEFORE DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION run_usage_task_deleted();

-- folds committed deltas into the daily rows; one fold at a time
CREATE FUNCTION run_usage_compact() RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  folded bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7461602);
  WITH moved AS (DELETE FROM run_usage_delta RETURNING *), written AS (
    INSERT INTO run_usage_daily AS u (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
    SELECT day, agent_id, project_id, workflow_type, billing, sum(runs) AS runs, sum(cost) AS cost, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(unpriced_runs) AS unpriced_runs, sum(unpriced_input) AS unpriced_input, sum(unpriced_output) AS unpriced_output
      FROM moved GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, agent_id, project_id, workflow_type, billing) DO UPDATE SET
      runs = u.runs + excluded.runs, cost = u.cost + excluded.cost, input_tokens = u.input_tokens + excluded.input_tokens,
      output_tokens = u.output_tokens + excluded.output_tokens, unpriced_runs = u.unpriced_runs + excluded.unpriced_runs,
      unpriced_input = u.unpriced_input + excluded.unpriced_input, unpriced_output = u.unpriced_output + excluded.unpriced_output
    RETURNING 1
  )
  SELECT count(*) INTO folded FROM moved;
  RETURN folded;
END $fn$;

-- the rollup recomputed from the runs. Writers append their deltas under ROW EXCLUSIVE: the lock
-- makes them wait, so every run change this reads has its delta among those it drops, and none after
CREATE FUNCTION run_usage_rebuild() RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  made bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(7461602);
  LOCK TABLE run_usage_delta IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM run_usage_delta;
  DELETE FROM run_usage_daily;
  INSERT INTO run_usage_daily (day, agent_id, project_id, workflow_type, billing, runs, cost, input_tokens, output_tokens, unpriced_runs, unpriced_input, unpriced_output)
  SELECT day, agent_id, project_id, workflow_type, billing, sum(runs) AS runs, sum(cost) AS cost, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(unpriced_runs) AS unpriced_runs, sum(unpriced_input) AS unpriced_input, sum(unpriced_output) AS unpriced_output
    FROM (SELECT 
         (coalesce(r.reported_at, r.started_at, r.created_at) AT TIME ZONE 'UTC')::date AS day,
         coalesce(r.owner_agent_id, r.target_agent_id, '') AS agent_id,
         coalesce(t.project_id::text, '') AS project_id,
         r.workflow_type,
         CASE WHEN r.billing = 'subscription' THEN 'subscription' ELSE 'metered' END AS billing, 
         1 AS runs,
         1 * coalesce(r.cost_estimate, 0)::numeric AS cost,
         1 * coalesce(r.input_tokens, 0) AS input_tokens,
         1 * coalesce(r.output_tokens, 0) AS output_tokens,
         1 * (r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0)::int AS unpriced_runs,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.input_tokens, 0) ELSE 0 END AS unpriced_input,
         1 * CASE WHEN r.cost_estimate IS NULL AND coalesce(r.input_tokens, 0) + coalesce(r.output_tokens, 0) > 0 THEN coalesce(r.output_tokens, 0) ELSE 0 END AS unpriced_output
            FROM workflow_runs r LEFT JOIN tasks t ON t.id = r.task_id) c
   GROUP BY 1, 2, 3, 4, 5;
  GET DIAGNOSTICS made = ROW_COUNT;
  RETURN made;
END $fn$;

SELECT run_usage_rebuild();

-- the costliest run of a window (the cost summary's top_run) without reading the window
CREATE INDEX workflow_runs_cost_top ON workflow_runs (cost_estimate DESC, id) WHERE cost_estimate IS NOT NULL;
