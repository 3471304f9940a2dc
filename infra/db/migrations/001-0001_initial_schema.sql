-- The whole schema that the three specs name: every table of spec 02's snapshot tiers A to D,
-- settings, per-entity state snapshots, restore checkpoints, the event outbox.
-- Nothing here may need a PostgreSQL newer than 15 (CI runs 15 and the embedded 18).
-- Every table has updated_at (maintained by a trigger unless the writer sets it), because
-- restore preview classifies conflicts by the live row's modification time.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE OR REPLACE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $$;

-- Tier A ---------------------------------------------------------------------------------------

CREATE TABLE workflows (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  states jsonb NOT NULL DEFAULT '["backlog","ready","in_progress","blocked","review","completed"]',
  is_default boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  icon text,
  color text,
  description text NOT NULL DEFAULT '',
  settings jsonb NOT NULL DEFAULT '{}',
  sort_order integer NOT NULL DEFAULT 0,
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX workspaces_one_default ON workspaces (is_default) WHERE is_default;

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'archived')),
  tags text[] NOT NULL DEFAULT '{}',
  default_workflow_id uuid REFERENCES workflows (id) ON DELETE SET NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  qmd_project_namespace text,
  workspace_id uuid REFERENCES workspaces (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_status ON projects (status);
CREATE INDEX projects_workspace ON projects (workspace_id);
CREATE INDEX projects_created ON projects (created_at, id);

CREATE TABLE tasks (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'backlog' CHECK (status IN (
    'backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed', 'archived',
    'topic_candidate', 'drafting', 'image_pending', 'image_ready', 'qa_pending',
    'ready_to_publish', 'published', 'retrying', 'failed', 'cancelled')),
  priority text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'critical')),
  owner text,
  due_date timestamptz,
  start_date timestamptz,
  estimated_effort double precision,
  actual_effort double precision,
  parent_task_id uuid REFERENCES tasks (id) ON DELETE SET NULL,
  dependency_ids uuid[] NOT NULL DEFAULT '{}',
  labels text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  recurrence_rule text,
  metadata jsonb NOT NULL DEFAULT '{}',
  deleted_at timestamptz,
  archived_at timestamptz,
  locked_at timestamptz,
  locked_by text,
  retry_count integer NOT NULL DEFAULT 0,
  status_updated_at timestamptz,
  active_workflow_run_id text,
  CHECK (parent_task_id IS DISTINCT FROM id)
);
CREATE INDEX tasks_project_status ON tasks (project_id, status) WHERE deleted_at IS NULL;
CREATE INDEX tasks_updated ON tasks (updated_at);
CREATE INDEX tasks_owner_status ON tasks (owner, status) WHERE deleted_at IS NULL;
CREATE INDEX tasks_parent ON tasks (parent_task_id) WHERE parent_task_id IS NOT NULL;
CREATE INDEX tasks_dependencies ON tasks USING gin (dependency_ids);
CREATE INDEX tasks_due ON tasks (due_date) WHERE deleted_at IS NULL;
CREATE INDEX tasks_status ON tasks (status) WHERE deleted_at IS NULL;

CREATE TABLE saved_views (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  filters jsonb NOT NULL DEFAULT '{}',
  sort text,
  created_by text NOT NULL DEFAULT 'dashboard-operator',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_views_project ON saved_views (project_id);

CREATE TABLE departments (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agent_profiles (
  agent_id text PRIMARY KEY,
  display_name text,
  role text,
  capabilities text[] NOT NULL DEFAULT '{}',
  department_id text REFERENCES departments (id) ON DELETE SET NULL,
  model text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_profiles_department ON agent_profiles (department_id);

-- Tier B ---------------------------------------------------------------------------------------

CREATE TABLE workflow_templates (
  name text PRIMARY KEY CHECK (name ~ '^[a-z0-9-]+$'),
  display_name text NOT NULL DEFAULT '',
  description text NOT NULL DEFAULT '',
  steps jsonb NOT NULL DEFAULT '[]',
  department_id text,
  ui_category text,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workflow_templates_department ON workflow_templates (department_id);
CREATE INDEX workflow_templates_category ON workflow_templates (ui_category);

CREATE TABLE workflow_agent_routing (
  workflow_type text PRIMARY KEY,
  agent_id text NOT NULL,
  priority integer NOT NULL DEFAULT 0,
  timeout_minutes integer NOT NULL DEFAULT 60 CHECK (timeout_minutes > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Run and step status stay open strings: spec 03 says unknown values must be tolerated.
CREATE TABLE workflow_runs (
  id uuid PRIMARY KEY,
  workflow_type text NOT NULL,
  status text NOT NULL DEFAULT 'queued',
  task_id uuid REFERENCES tasks (id) ON DELETE SET NULL,
  current_step integer NOT NULL DEFAULT 0,
  owner_agent_id text,
  target_agent_id text,
  input_payload jsonb NOT NULL DEFAULT '{}',
  output_summary jsonb,
  dispatch_attempts integer NOT NULL DEFAULT 0,
  gateway_session_id text,
  gateway_session_active boolean NOT NULL DEFAULT false,
  claim_session_id text,
  session_history text[] NOT NULL DEFAULT '{}',
  retry_count integer NOT NULL DEFAULT 0,
  dispatched_at timestamptz,
  claimed_at timestamptz,
  heartbeat_at timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  cost_estimate double precision,
  input_tokens bigint,
  output_tokens bigint,
  cached_tokens bigint,
  model_id text,
  currency text,
  reported_at timestamptz,
  last_error text,
  created_by text NOT NULL DEFAULT 'dashboard-operator',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workflow_runs_status ON workflow_runs (status, created_at);
CREATE INDEX workflow_runs_type ON workflow_runs (workflow_type, created_at);
CREATE INDEX workflow_runs_task ON workflow_runs (task_id, created_at DESC);
CREATE INDEX workflow_runs_target ON workflow_runs (target_agent_id, status);
CREATE INDEX workflow_runs_usage_day ON workflow_runs ((coalesce(reported_at, started_at, created_at)));

CREATE TABLE workflow_steps (
  id uuid PRIMARY KEY,
  run_id uuid NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  step_name text NOT NULL,
  step_order integer NOT NULL CHECK (step_order >= 0),
  status text NOT NULL DEFAULT 'pending',
  started_at timestamptz,
  finished_at timestamptz,
  error_message text,
  output jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (run_id, step_order)
);

CREATE TABLE workflow_approvals (
  id uuid PRIMARY KEY,
  workflow_run_id uuid NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  step_name text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  approver_id text,
  approval_type text NOT NULL DEFAULT 'manual',
  requested_by text,
  decided_by text,
  decided_at timestamptz,
  note text,
  escalated_to text,
  escalation_reason text,
  escalated_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workflow_approvals_pending ON workflow_approvals (approver_id, created_at) WHERE status = 'pending';
CREATE INDEX workflow_approvals_run ON workflow_approvals (workflow_run_id);

CREATE TABLE workflow_artifacts (
  id uuid PRIMARY KEY,
  workflow_run_id uuid NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
  artifact_type text NOT NULL CHECK (artifact_type IN ('url', 'file', 'text')),
  title text,
  uri text,
  content text,
  status text NOT NULL DEFAULT 'active',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workflow_artifacts_run ON workflow_artifacts (workflow_run_id);
CREATE INDEX workflow_artifacts_type_status ON workflow_artifacts (artifact_type, status);

-- Tier C ---------------------------------------------------------------------------------------

CREATE TABLE budgets (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('agent', 'department', 'project', 'fleet')),
  scope_id text,
  period text NOT NULL CHECK (period IN ('daily', 'weekly', 'monthly')),
  cap_usd double precision CHECK (cap_usd > 0),
  cap_tokens bigint CHECK (cap_tokens > 0),
  action_on_exceed text NOT NULL CHECK (action_on_exceed IN ('warn', 'pause_new_runs', 'hard_stop')),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((cap_usd IS NULL) <> (cap_tokens IS NULL)),
  CHECK ((scope = 'fleet') = (scope_id IS NULL))
);
CREATE UNIQUE INDEX budgets_one_active_per_scope ON budgets (scope, coalesce(scope_id, ''), period) WHERE active;

CREATE TABLE budget_events (
  id bigserial PRIMARY KEY,
  budget_id uuid NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
  period_key text NOT NULL,
  event_kind text NOT NULL CHECK (event_kind IN ('warned', 'paused', 'hard_stopped', 'recovered')),
  detail jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (budget_id, period_key, event_kind)
);
CREATE INDEX budget_events_budget ON budget_events (budget_id, created_at DESC);

CREATE TABLE action_receipts (
  action_id uuid PRIMARY KEY,
  kind text NOT NULL,
  target_id text NOT NULL,
  params_hash text NOT NULL,
  actor text NOT NULL,
  outcome text CHECK (outcome IN ('executed', 'rejected_governance', 'failed')),
  rollback_hint text,
  detail jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX action_receipts_created ON action_receipts (created_at DESC);

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  timestamp timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL,
  action text NOT NULL,
  entity_type text NOT NULL,
  entity_id text,
  task_id uuid,
  project_id uuid,
  old_value jsonb,
  new_value jsonb,
  metadata jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- free-text search (GET /api/audit q) over actor, action and values, served by a trigram index
  search_text text GENERATED ALWAYS AS (
    lower(actor || ' ' || action || ' ' || entity_type || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, ''))
  ) STORED
);
CREATE INDEX audit_log_timestamp ON audit_log (timestamp DESC, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor, timestamp DESC);
CREATE INDEX audit_log_action ON audit_log (action, timestamp DESC);
CREATE INDEX audit_log_task ON audit_log (task_id, timestamp DESC) WHERE task_id IS NOT NULL;
CREATE INDEX audit_log_project ON audit_log (project_id, timestamp DESC) WHERE project_id IS NOT NULL;
CREATE INDEX audit_log_entity ON audit_log (entity_type, entity_id, timestamp DESC);
CREATE INDEX audit_log_search ON audit_log USING gin (search_text gin_trgm_ops);

-- Tier D ---------------------------------------------------------------------------------------

CREATE TABLE service_catalog (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  department_id text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE service_requests (
  id uuid PRIMARY KEY,
  service_id uuid REFERENCES service_catalog (id) ON DELETE SET NULL,
  requester text,
  status text NOT NULL DEFAULT 'open',
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX service_requests_service ON service_requests (service_id);

CREATE TABLE department_daily_metrics (
  department_id text NOT NULL,
  day date NOT NULL,
  metrics jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (department_id, day)
);

CREATE TABLE task_runs (
  id uuid PRIMARY KEY,
  task_id uuid REFERENCES tasks (id) ON DELETE CASCADE,
  agent text,
  status text NOT NULL DEFAULT 'running',
  started_at timestamptz,
  finished_at timestamptz,
  output jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_runs_task ON task_runs (task_id);

CREATE TABLE cron_job_runs (
  id uuid PRIMARY KEY,
  job_id text NOT NULL,
  status text NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  output jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cron_job_runs_job ON cron_job_runs (job_id, started_at DESC);

CREATE TABLE agent_heartbeats (
  agent_name text PRIMARY KEY,
  last_seen_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('online', 'offline', 'error')),
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Outside the snapshot tiers -------------------------------------------------------------------

CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb,
  source text NOT NULL CHECK (source IN ('config', 'env')),
  type text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'json', 'password')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE entity_snapshots (
  id uuid PRIMARY KEY,
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  state jsonb NOT NULL,
  reason text NOT NULL,
  actor text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entity_snapshots_entity ON entity_snapshots (entity_type, entity_id, created_at DESC);
CREATE INDEX entity_snapshots_created ON entity_snapshots (created_at DESC);

CREATE TABLE restore_checkpoints (
  restore_id uuid PRIMARY KEY,
  snapshot_id uuid NOT NULL,
  mode text NOT NULL CHECK (mode IN ('merge', 'replace')),
  completed_tables text[] NOT NULL DEFAULT '{}',
  started_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  last_error text,
  summary jsonb
);

CREATE TABLE event_outbox (
  id bigserial PRIMARY KEY,
  channel text NOT NULL CHECK (channel IN ('events', 'stream')),
  name text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_outbox_created ON event_outbox (created_at);

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['workflows', 'workspaces', 'projects', 'tasks', 'saved_views', 'departments',
    'agent_profiles', 'workflow_templates', 'workflow_agent_routing', 'workflow_runs', 'workflow_steps',
    'workflow_approvals', 'workflow_artifacts', 'budgets', 'budget_events', 'action_receipts',
    'service_catalog', 'service_requests', 'department_daily_metrics', 'task_runs', 'cron_job_runs',
    'agent_heartbeats', 'settings']
  LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION touch_updated_at()', t || '_touch', t);
  END LOOP;
END $$;
