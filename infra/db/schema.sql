-- The whole schema the migrations of infra/db/migrations/ make, as a freshly migrated database holds it,
-- read back from the catalog: extensions, tables (their columns and constraints, then their indexes and
-- triggers), sequences of their own, views and functions. Written by `npm run db:schema`
-- (scripts/db-schema.ts); do not edit. Applied nowhere (the migrations are the truth): it is here to be
-- read, and its diff shows what a migration changes. test/handlers/schema-file.test.ts fails when it is stale.

CREATE EXTENSION pg_trgm;

CREATE TABLE action_receipts (
    action_id uuid NOT NULL,
    kind text NOT NULL,
    target_id text NOT NULL,
    params_hash text NOT NULL,
    actor text NOT NULL,
    outcome text,
    rollback_hint text,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT action_receipts_kind_check CHECK ((kind = ANY (ARRAY['task.assign'::text, 'run.dispatch'::text, 'approval.decide'::text, 'run.cancel'::text, 'run.redispatch'::text, 'task.create'::text, 'snapshot.create'::text, 'task.update'::text]))),
    CONSTRAINT action_receipts_outcome_check CHECK ((outcome = ANY (ARRAY['executed'::text, 'rejected_governance'::text, 'failed'::text]))),
    CONSTRAINT action_receipts_pkey PRIMARY KEY (action_id)
);
CREATE INDEX action_receipts_created ON public.action_receipts USING btree (created_at DESC);
CREATE INDEX action_receipts_target ON public.action_receipts USING btree (target_id, created_at);
CREATE TRIGGER action_receipts_touch BEFORE UPDATE ON public.action_receipts FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE agent_dispatch_controls (
    agent_id text NOT NULL,
    max_concurrent_runs integer,
    dispatch_paused_until timestamp with time zone,
    pause_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT agent_dispatch_controls_max_concurrent_runs_check CHECK ((max_concurrent_runs > 0)),
    CONSTRAINT agent_dispatch_controls_pkey PRIMARY KEY (agent_id)
);
CREATE TRIGGER agent_dispatch_controls_touch BEFORE UPDATE ON public.agent_dispatch_controls FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE agent_heartbeats (
    agent_name text NOT NULL,
    last_seen_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT agent_heartbeats_pkey PRIMARY KEY (agent_name),
    CONSTRAINT agent_heartbeats_status_check CHECK ((status = ANY (ARRAY['online'::text, 'offline'::text, 'error'::text])))
);
CREATE TRIGGER agent_heartbeats_touch BEFORE UPDATE ON public.agent_heartbeats FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE agent_profiles (
    agent_id text NOT NULL,
    display_name text,
    role text,
    capabilities text[] DEFAULT '{}'::text[] NOT NULL,
    department_id text,
    model text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    billing text,
    CONSTRAINT agent_profiles_billing_check CHECK ((billing = ANY (ARRAY['metered'::text, 'subscription'::text]))),
    CONSTRAINT agent_profiles_pkey PRIMARY KEY (agent_id),
    CONSTRAINT agent_profiles_department_id_fkey FOREIGN KEY (department_id) REFERENCES departments(id) ON DELETE SET NULL
);
CREATE INDEX agent_profiles_department ON public.agent_profiles USING btree (department_id);
CREATE TRIGGER agent_profiles_touch BEFORE UPDATE ON public.agent_profiles FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE agent_tokens (
    id uuid NOT NULL,
    agent_id text NOT NULL,
    label text,
    digest text NOT NULL,
    scopes text[] DEFAULT '{agent}'::text[] NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    created_by text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    CONSTRAINT agent_tokens_agent_id_check CHECK ((agent_id <> ''::text)),
    CONSTRAINT agent_tokens_digest_check CHECK ((digest ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT agent_tokens_digest_key UNIQUE (digest),
    CONSTRAINT agent_tokens_pkey PRIMARY KEY (id),
    CONSTRAINT agent_tokens_scopes_check CHECK (((scopes <@ ARRAY['agent'::text, 'read'::text]) AND (cardinality(scopes) > 0)))
);
CREATE INDEX agent_tokens_agent ON public.agent_tokens USING btree (agent_id, created_at);
CREATE TRIGGER agent_tokens_touch BEFORE UPDATE ON public.agent_tokens FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE audit_log (
    id bigint DEFAULT nextval('audit_log_id_seq'::regclass) NOT NULL,
    "timestamp" timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    entity_type text NOT NULL,
    entity_id text,
    task_id uuid,
    project_id uuid,
    old_value jsonb,
    new_value jsonb,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT audit_log_pkey PRIMARY KEY (id)
);
CREATE INDEX audit_log_action ON public.audit_log USING btree (action, "timestamp" DESC);
CREATE INDEX audit_log_actor ON public.audit_log USING btree (actor, "timestamp" DESC);
CREATE INDEX audit_log_entity ON public.audit_log USING btree (entity_type, entity_id, "timestamp" DESC);
CREATE INDEX audit_log_governance ON public.audit_log USING btree ("timestamp" DESC, id DESC) WHERE (action ~~ 'action.%'::text);
CREATE INDEX audit_log_project ON public.audit_log USING btree (project_id, "timestamp" DESC) WHERE (project_id IS NOT NULL);
CREATE INDEX audit_log_task ON public.audit_log USING btree (task_id, "timestamp" DESC) WHERE (task_id IS NOT NULL);
CREATE INDEX audit_log_timestamp ON public.audit_log USING btree ("timestamp" DESC, id DESC);
CREATE TRIGGER audit_log_search_delete AFTER DELETE ON public.audit_log REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_forget();
CREATE TRIGGER audit_log_search_insert AFTER INSERT ON public.audit_log REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_enqueue();
CREATE TRIGGER audit_log_search_truncate AFTER TRUNCATE ON public.audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_search_forget();
CREATE TRIGGER audit_log_search_update AFTER UPDATE ON public.audit_log REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION audit_search_enqueue();

CREATE TABLE audit_search (
    audit_id bigint NOT NULL,
    search_text text NOT NULL,
    CONSTRAINT audit_search_pkey PRIMARY KEY (audit_id)
);
CREATE INDEX audit_search_text_trgm ON public.audit_search USING gin (search_text gin_trgm_ops);

CREATE TABLE audit_search_pending (
    audit_id bigint NOT NULL,
    CONSTRAINT audit_search_pending_pkey PRIMARY KEY (audit_id)
);

CREATE TABLE budget_events (
    id bigint DEFAULT nextval('budget_events_id_seq'::regclass) NOT NULL,
    budget_id uuid NOT NULL,
    period_key text NOT NULL,
    event_kind text NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT budget_events_budget_id_period_key_event_kind_key UNIQUE (budget_id, period_key, event_kind),
    CONSTRAINT budget_events_event_kind_check CHECK ((event_kind = ANY (ARRAY['warned'::text, 'paused'::text, 'hard_stopped'::text, 'recovered'::text, 'unpriced_usage'::text]))),
    CONSTRAINT budget_events_pkey PRIMARY KEY (id),
    CONSTRAINT budget_events_budget_id_fkey FOREIGN KEY (budget_id) REFERENCES budgets(id) ON DELETE CASCADE
);
CREATE INDEX budget_events_budget ON public.budget_events USING btree (budget_id, created_at DESC);
CREATE TRIGGER budget_events_touch BEFORE UPDATE ON public.budget_events FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE budgets (
    id uuid NOT NULL,
    name text NOT NULL,
    scope text NOT NULL,
    scope_id text,
    period text NOT NULL,
    cap_usd double precision,
    cap_tokens bigint,
    action_on_exceed text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    basis text DEFAULT 'billed'::text NOT NULL,
    CONSTRAINT budgets_action_on_exceed_check CHECK ((action_on_exceed = ANY (ARRAY['warn'::text, 'pause_new_runs'::text, 'hard_stop'::text]))),
    CONSTRAINT budgets_basis_check CHECK ((basis = ANY (ARRAY['billed'::text, 'list'::text]))),
    CONSTRAINT budgets_cap_tokens_check CHECK ((cap_tokens > 0)),
    CONSTRAINT budgets_cap_usd_check CHECK ((cap_usd > (0)::double precision)),
    CONSTRAINT budgets_check CHECK (((cap_usd IS NULL) <> (cap_tokens IS NULL))),
    CONSTRAINT budgets_check1 CHECK (((scope = 'fleet'::text) = (scope_id IS NULL))),
    CONSTRAINT budgets_period_check CHECK ((period = ANY (ARRAY['daily'::text, 'weekly'::text, 'monthly'::text]))),
    CONSTRAINT budgets_pkey PRIMARY KEY (id),
    CONSTRAINT budgets_scope_check CHECK ((scope = ANY (ARRAY['agent'::text, 'department'::text, 'project'::text, 'fleet'::text])))
);
CREATE UNIQUE INDEX budgets_one_active_per_scope ON public.budgets USING btree (scope, COALESCE(scope_id, ''::text), period) WHERE active;
CREATE TRIGGER budgets_touch BEFORE UPDATE ON public.budgets FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE chat_messages (
    id uuid NOT NULL,
    session_key text NOT NULL,
    role text NOT NULL,
    content text NOT NULL,
    status text DEFAULT 'sent'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    model_id text,
    input_tokens bigint,
    output_tokens bigint,
    cached_tokens bigint,
    cache_write_tokens bigint,
    cost_estimate double precision,
    currency text,
    cost_source text,
    CONSTRAINT chat_messages_cache_write_tokens_check CHECK ((cache_write_tokens >= 0)),
    CONSTRAINT chat_messages_cached_tokens_check CHECK ((cached_tokens >= 0)),
    CONSTRAINT chat_messages_cost_estimate_check CHECK ((cost_estimate >= (0)::double precision)),
    CONSTRAINT chat_messages_cost_source_check CHECK ((cost_source = ANY (ARRAY['runtime'::text, 'table'::text]))),
    CONSTRAINT chat_messages_input_tokens_check CHECK ((input_tokens >= 0)),
    CONSTRAINT chat_messages_output_tokens_check CHECK ((output_tokens >= 0)),
    CONSTRAINT chat_messages_pkey PRIMARY KEY (id),
    CONSTRAINT chat_messages_role_check CHECK ((role = ANY (ARRAY['user'::text, 'assistant'::text]))),
    CONSTRAINT chat_messages_status_check CHECK ((status = ANY (ARRAY['sent'::text, 'failed'::text])))
);
CREATE INDEX chat_messages_session ON public.chat_messages USING btree (session_key, created_at DESC);
CREATE INDEX chat_messages_user_recent ON public.chat_messages USING btree (created_at) WHERE (role = 'user'::text);
CREATE TRIGGER chat_messages_touch BEFORE UPDATE ON public.chat_messages FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE cron_job_runs (
    id uuid NOT NULL,
    job_id text NOT NULL,
    status text NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    output jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT cron_job_runs_pkey PRIMARY KEY (id)
);
CREATE INDEX cron_job_runs_job ON public.cron_job_runs USING btree (job_id, started_at DESC);
CREATE TRIGGER cron_job_runs_touch BEFORE UPDATE ON public.cron_job_runs FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE department_daily_metrics (
    department_id text NOT NULL,
    day date NOT NULL,
    metrics jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT department_daily_metrics_pkey PRIMARY KEY (department_id, day)
);
CREATE TRIGGER department_daily_metrics_touch BEFORE UPDATE ON public.department_daily_metrics FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE departments (
    id text NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT departments_pkey PRIMARY KEY (id)
);
CREATE TRIGGER departments_touch BEFORE UPDATE ON public.departments FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE dispatcher_ticks (
    id bigint DEFAULT nextval('dispatcher_ticks_id_seq'::regclass) NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    source text NOT NULL,
    summary jsonb NOT NULL,
    CONSTRAINT dispatcher_ticks_pkey PRIMARY KEY (id)
);

CREATE TABLE entity_snapshots (
    id uuid NOT NULL,
    entity_type text NOT NULL,
    entity_id text NOT NULL,
    state jsonb NOT NULL,
    reason text NOT NULL,
    actor text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    seq bigint DEFAULT nextval('entity_snapshots_seq_seq'::regclass) NOT NULL,
    CONSTRAINT entity_snapshots_pkey PRIMARY KEY (id)
);
CREATE INDEX entity_snapshots_created_seq ON public.entity_snapshots USING btree (created_at DESC, seq DESC);
CREATE INDEX entity_snapshots_entity_seq ON public.entity_snapshots USING btree (entity_type, entity_id, created_at DESC, seq DESC);
CREATE INDEX entity_snapshots_task_project ON public.entity_snapshots USING btree (((state ->> 'project_id'::text)), entity_id) WHERE (entity_type = 'task'::text);

CREATE TABLE event_outbox (
    id bigint DEFAULT nextval('event_outbox_id_seq'::regclass) NOT NULL,
    channel text NOT NULL,
    name text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    "position" bigint,
    CONSTRAINT event_outbox_channel_check CHECK ((channel = ANY (ARRAY['events'::text, 'stream'::text]))),
    CONSTRAINT event_outbox_pkey PRIMARY KEY (id)
);
CREATE INDEX event_outbox_created ON public.event_outbox USING brin (created_at);
CREATE UNIQUE INDEX event_outbox_position ON public.event_outbox USING btree ("position") WHERE ("position" IS NOT NULL);
CREATE INDEX event_outbox_unsequenced ON public.event_outbox USING btree (id) WHERE ("position" IS NULL);

CREATE TABLE event_outbox_watermark (
    singleton boolean DEFAULT true NOT NULL,
    pruned_through bigint DEFAULT 0 NOT NULL,
    last_position bigint DEFAULT 0 NOT NULL,
    CONSTRAINT event_outbox_watermark_pkey PRIMARY KEY (singleton),
    CONSTRAINT event_outbox_watermark_singleton_check CHECK (singleton)
);

CREATE TABLE model_prices (
    model_id text NOT NULL,
    effective_from text DEFAULT ''::text NOT NULL,
    input_per_million double precision NOT NULL,
    output_per_million double precision NOT NULL,
    cached_input_per_million double precision,
    cache_write_per_million double precision,
    billing text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT model_prices_billing_check CHECK ((billing = ANY (ARRAY['metered'::text, 'subscription'::text]))),
    CONSTRAINT model_prices_cache_write_per_million_check CHECK ((cache_write_per_million >= (0)::double precision)),
    CONSTRAINT model_prices_cached_input_per_million_check CHECK ((cached_input_per_million >= (0)::double precision)),
    CONSTRAINT model_prices_effective_from_check CHECK (((effective_from = ''::text) OR (effective_from ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'::text))),
    CONSTRAINT model_prices_input_per_million_check CHECK ((input_per_million >= (0)::double precision)),
    CONSTRAINT model_prices_model_id_check CHECK ((model_id <> ''::text)),
    CONSTRAINT model_prices_output_per_million_check CHECK ((output_per_million >= (0)::double precision)),
    CONSTRAINT model_prices_pkey PRIMARY KEY (model_id, effective_from)
);
CREATE TRIGGER model_prices_touch BEFORE UPDATE ON public.model_prices FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE projects (
    id uuid NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    default_workflow_id uuid,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    qmd_project_namespace text,
    workspace_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT projects_pkey PRIMARY KEY (id),
    CONSTRAINT projects_status_check CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text, 'archived'::text]))),
    CONSTRAINT projects_default_workflow_id_fkey FOREIGN KEY (default_workflow_id) REFERENCES workflows(id) ON DELETE SET NULL,
    CONSTRAINT projects_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE SET NULL
);
CREATE INDEX projects_created ON public.projects USING btree (created_at, id);
CREATE INDEX projects_status ON public.projects USING btree (status);
CREATE INDEX projects_workspace ON public.projects USING btree (workspace_id);
CREATE TRIGGER projects_touch BEFORE UPDATE ON public.projects FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE restore_checkpoints (
    restore_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    mode text NOT NULL,
    completed_tables text[] DEFAULT '{}'::text[] NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    last_error text,
    summary jsonb,
    CONSTRAINT restore_checkpoints_mode_check CHECK ((mode = ANY (ARRAY['merge'::text, 'replace'::text]))),
    CONSTRAINT restore_checkpoints_pkey PRIMARY KEY (restore_id)
);

CREATE TABLE run_idempotency_keys (
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    run_id uuid NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT run_idempotency_keys_pkey PRIMARY KEY (idempotency_key),
    CONSTRAINT run_idempotency_keys_run_id_fkey FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);
CREATE INDEX run_idempotency_keys_expiry ON public.run_idempotency_keys USING btree (expires_at);
CREATE INDEX run_idempotency_keys_run ON public.run_idempotency_keys USING btree (run_id);

CREATE TABLE run_runtime_usage (
    run_id uuid NOT NULL,
    outcome text NOT NULL,
    session_key text,
    messages integer DEFAULT 0 NOT NULL,
    checked_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT run_runtime_usage_messages_check CHECK ((messages >= 0)),
    CONSTRAINT run_runtime_usage_outcome_check CHECK ((outcome = ANY (ARRAY['costed'::text, 'no_usage'::text, 'no_session'::text, 'reported'::text]))),
    CONSTRAINT run_runtime_usage_pkey PRIMARY KEY (run_id),
    CONSTRAINT run_runtime_usage_run_id_fkey FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);

CREATE TABLE run_runtime_usage_pending (
    run_id uuid NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    CONSTRAINT run_runtime_usage_pending_pkey PRIMARY KEY (run_id),
    CONSTRAINT run_runtime_usage_pending_run_id_fkey FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);
CREATE INDEX run_runtime_usage_pending_finished ON public.run_runtime_usage_pending USING btree (finished_at, run_id);

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
    CONSTRAINT run_usage_daily_pkey PRIMARY KEY (day, agent_id, project_id, workflow_type, billing)
);

CREATE TABLE run_usage_delta (
    id bigint DEFAULT nextval('run_usage_delta_id_seq'::regclass) NOT NULL,
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
    CONSTRAINT run_usage_delta_pkey PRIMARY KEY (id)
);
CREATE INDEX run_usage_delta_day ON public.run_usage_delta USING btree (day);

CREATE TABLE saved_views (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    name text NOT NULL,
    filters jsonb DEFAULT '{}'::jsonb NOT NULL,
    sort text,
    created_by text DEFAULT 'dashboard-operator'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT saved_views_pkey PRIMARY KEY (id),
    CONSTRAINT saved_views_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE
);
CREATE INDEX saved_views_project ON public.saved_views USING btree (project_id);
CREATE TRIGGER saved_views_touch BEFORE UPDATE ON public.saved_views FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schema_migrations_pkey PRIMARY KEY (name)
);

CREATE TABLE service_catalog (
    id uuid NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    department_id text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT service_catalog_pkey PRIMARY KEY (id)
);
CREATE TRIGGER service_catalog_touch BEFORE UPDATE ON public.service_catalog FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE service_requests (
    id uuid NOT NULL,
    service_id uuid,
    requester text,
    status text DEFAULT 'open'::text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT service_requests_pkey PRIMARY KEY (id),
    CONSTRAINT service_requests_service_id_fkey FOREIGN KEY (service_id) REFERENCES service_catalog(id) ON DELETE SET NULL
);
CREATE INDEX service_requests_service ON public.service_requests USING btree (service_id);
CREATE TRIGGER service_requests_touch BEFORE UPDATE ON public.service_requests FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE settings (
    key text NOT NULL,
    value jsonb,
    source text NOT NULL,
    type text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT settings_pkey PRIMARY KEY (key),
    CONSTRAINT settings_source_check CHECK ((source = ANY (ARRAY['config'::text, 'env'::text]))),
    CONSTRAINT settings_type_check CHECK ((type = ANY (ARRAY['string'::text, 'number'::text, 'boolean'::text, 'json'::text, 'password'::text])))
);
CREATE TRIGGER settings_touch BEFORE UPDATE ON public.settings FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE task_runs (
    id uuid NOT NULL,
    task_id uuid,
    agent text,
    status text DEFAULT 'running'::text NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    output jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT task_runs_pkey PRIMARY KEY (id),
    CONSTRAINT task_runs_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks(id) ON DELETE CASCADE
);
CREATE INDEX task_runs_task ON public.task_runs USING btree (task_id);
CREATE TRIGGER task_runs_touch BEFORE UPDATE ON public.task_runs FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE tasks (
    id uuid NOT NULL,
    project_id uuid NOT NULL,
    title text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    status text DEFAULT 'backlog'::text NOT NULL,
    priority text DEFAULT 'medium'::text NOT NULL,
    owner text,
    due_date timestamp with time zone,
    start_date timestamp with time zone,
    estimated_effort double precision,
    actual_effort double precision,
    parent_task_id uuid,
    dependency_ids uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    labels text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    recurrence_rule text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    deleted_at timestamp with time zone,
    archived_at timestamp with time zone,
    locked_at timestamp with time zone,
    locked_by text,
    retry_count integer DEFAULT 0 NOT NULL,
    status_updated_at timestamp with time zone,
    active_workflow_run_id text,
    lease_expires_at timestamp with time zone,
    lock_generation integer DEFAULT 0 NOT NULL,
    json_segments text GENERATED ALWAYS AS (task_json_text(task_json_segments(id, project_id, title, description, status, priority, owner, due_date, start_date, parent_task_id, dependency_ids, labels, created_at, updated_at, completed_at, recurrence_rule, deleted_at, archived_at, locked_at, locked_by, retry_count, status_updated_at, active_workflow_run_id, lease_expires_at, lock_generation), estimated_effort, actual_effort, metadata)) STORED,
    CONSTRAINT tasks_check CHECK ((parent_task_id IS DISTINCT FROM id)),
    CONSTRAINT tasks_lock_generation_check CHECK ((lock_generation >= 0)),
    CONSTRAINT tasks_pkey PRIMARY KEY (id),
    CONSTRAINT tasks_priority_check CHECK ((priority = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text, 'critical'::text]))),
    CONSTRAINT tasks_status_check CHECK ((status = ANY (ARRAY['backlog'::text, 'ready'::text, 'in_progress'::text, 'blocked'::text, 'review'::text, 'completed'::text, 'archived'::text, 'topic_candidate'::text, 'drafting'::text, 'image_pending'::text, 'image_ready'::text, 'qa_pending'::text, 'ready_to_publish'::text, 'published'::text, 'retrying'::text, 'failed'::text, 'cancelled'::text]))),
    CONSTRAINT tasks_parent_task_id_fkey FOREIGN KEY (parent_task_id) REFERENCES tasks(id) ON DELETE SET NULL DEFERRABLE,
    CONSTRAINT tasks_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE
);
CREATE INDEX tasks_board_column_order ON public.tasks USING btree (project_id, status, (
CASE priority
    WHEN 'critical'::text THEN 0
    WHEN 'high'::text THEN 1
    WHEN 'medium'::text THEN 2
    ELSE 3
END), created_at, id) WHERE ((deleted_at IS NULL) AND (archived_at IS NULL));
CREATE INDEX tasks_created ON public.tasks USING btree (created_at, id) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_dependencies ON public.tasks USING gin (dependency_ids);
CREATE INDEX tasks_due ON public.tasks USING btree (due_date) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_lease_expiry ON public.tasks USING btree (lease_expires_at) WHERE (locked_by IS NOT NULL);
CREATE INDEX tasks_owner_status ON public.tasks USING btree (owner, status) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_parent ON public.tasks USING btree (parent_task_id) WHERE (parent_task_id IS NOT NULL);
CREATE INDEX tasks_project_created ON public.tasks USING btree (project_id, created_at, id) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_project_status ON public.tasks USING btree (project_id, status) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_status ON public.tasks USING btree (status) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_title_trgm ON public.tasks USING gin (title gin_trgm_ops) WHERE (deleted_at IS NULL);
CREATE INDEX tasks_updated ON public.tasks USING btree (updated_at);
CREATE TRIGGER run_usage_task_delete BEFORE DELETE ON public.tasks FOR EACH ROW EXECUTE FUNCTION run_usage_task_deleted();
CREATE TRIGGER run_usage_task_project AFTER UPDATE OF project_id ON public.tasks FOR EACH ROW WHEN ((old.project_id IS DISTINCT FROM new.project_id)) EXECUTE FUNCTION run_usage_task_moved();
CREATE TRIGGER tasks_touch BEFORE UPDATE ON public.tasks FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE webhook_deliveries (
    id uuid NOT NULL,
    seq bigint DEFAULT nextval('webhook_deliveries_seq_seq'::regclass) NOT NULL,
    webhook_id uuid NOT NULL,
    "position" bigint,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    event_at timestamp with time zone NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    response_code integer,
    response_body text,
    last_error text,
    next_attempt_at timestamp with time zone,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
    CONSTRAINT webhook_deliveries_response_body_check CHECK ((length(response_body) <= 1024)),
    CONSTRAINT webhook_deliveries_seq_key UNIQUE (seq),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text]))),
    CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_newest ON public.webhook_deliveries USING btree (webhook_id, seq DESC);
CREATE INDEX webhook_deliveries_pending ON public.webhook_deliveries USING btree (webhook_id, seq) WHERE (status = 'pending'::text);
CREATE TRIGGER webhook_deliveries_touch BEFORE UPDATE ON public.webhook_deliveries FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE webhooks (
    id uuid NOT NULL,
    url text NOT NULL,
    events text[] NOT NULL,
    secret text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    failing boolean DEFAULT false NOT NULL,
    cursor bigint NOT NULL,
    lease_until timestamp with time zone,
    created_by text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhooks_events_check CHECK ((cardinality(events) > 0)),
    CONSTRAINT webhooks_pkey PRIMARY KEY (id),
    CONSTRAINT webhooks_url_check CHECK ((url ~ '^https?://'::text))
);
CREATE TRIGGER webhooks_touch BEFORE UPDATE ON public.webhooks FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_agent_routing (
    workflow_type text NOT NULL,
    agent_id text NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    timeout_minutes integer DEFAULT 60 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    max_concurrent integer,
    exclusive_per_task boolean DEFAULT false NOT NULL,
    expected_cost_usd double precision,
    expected_tokens bigint,
    CONSTRAINT workflow_agent_routing_expected_cost_usd_check CHECK ((expected_cost_usd >= (0)::double precision)),
    CONSTRAINT workflow_agent_routing_expected_tokens_check CHECK ((expected_tokens >= 0)),
    CONSTRAINT workflow_agent_routing_max_concurrent_check CHECK ((max_concurrent > 0)),
    CONSTRAINT workflow_agent_routing_pkey PRIMARY KEY (workflow_type),
    CONSTRAINT workflow_agent_routing_timeout_minutes_check CHECK ((timeout_minutes > 0))
);
CREATE INDEX workflow_agent_routing_agent ON public.workflow_agent_routing USING btree (agent_id);
CREATE TRIGGER workflow_agent_routing_touch BEFORE UPDATE ON public.workflow_agent_routing FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_approvals (
    id uuid NOT NULL,
    workflow_run_id uuid NOT NULL,
    step_name text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    approver_id text,
    approval_type text DEFAULT 'manual'::text NOT NULL,
    requested_by text,
    decided_by text,
    decided_at timestamp with time zone,
    note text,
    escalated_to text,
    escalation_reason text,
    escalated_at timestamp with time zone,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workflow_approvals_pkey PRIMARY KEY (id),
    CONSTRAINT workflow_approvals_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text]))),
    CONSTRAINT workflow_approvals_workflow_run_id_fkey FOREIGN KEY (workflow_run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);
CREATE INDEX workflow_approvals_pending ON public.workflow_approvals USING btree (approver_id, created_at) WHERE (status = 'pending'::text);
CREATE INDEX workflow_approvals_run ON public.workflow_approvals USING btree (workflow_run_id);
CREATE INDEX workflow_approvals_status ON public.workflow_approvals USING btree (status, created_at);
CREATE TRIGGER workflow_approvals_touch BEFORE UPDATE ON public.workflow_approvals FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_artifacts (
    id uuid NOT NULL,
    workflow_run_id uuid NOT NULL,
    artifact_type text NOT NULL,
    title text,
    uri text,
    content text,
    status text DEFAULT 'active'::text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workflow_artifacts_artifact_type_check CHECK ((artifact_type = ANY (ARRAY['url'::text, 'file'::text, 'text'::text]))),
    CONSTRAINT workflow_artifacts_pkey PRIMARY KEY (id),
    CONSTRAINT workflow_artifacts_workflow_run_id_fkey FOREIGN KEY (workflow_run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);
CREATE INDEX workflow_artifacts_run ON public.workflow_artifacts USING btree (workflow_run_id);
CREATE INDEX workflow_artifacts_status ON public.workflow_artifacts USING btree (status);
CREATE INDEX workflow_artifacts_type_status ON public.workflow_artifacts USING btree (artifact_type, status);
CREATE TRIGGER workflow_artifacts_touch BEFORE UPDATE ON public.workflow_artifacts FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_runs (
    id uuid NOT NULL,
    workflow_type text NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    task_id uuid,
    current_step integer DEFAULT 0 NOT NULL,
    owner_agent_id text,
    target_agent_id text,
    input_payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    output_summary jsonb,
    dispatch_attempts integer DEFAULT 0 NOT NULL,
    gateway_session_id text,
    gateway_session_active boolean DEFAULT false NOT NULL,
    claim_session_id text,
    session_history text[] DEFAULT '{}'::text[] NOT NULL,
    retry_count integer DEFAULT 0 NOT NULL,
    dispatched_at timestamp with time zone,
    claimed_at timestamp with time zone,
    heartbeat_at timestamp with time zone,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    cost_estimate double precision,
    input_tokens bigint,
    output_tokens bigint,
    cached_tokens bigint,
    model_id text,
    currency text,
    reported_at timestamp with time zone,
    last_error text,
    created_by text DEFAULT 'dashboard-operator'::text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    error_class text,
    cache_write_tokens bigint,
    cost_source text,
    billing text,
    CONSTRAINT workflow_runs_billing_check CHECK ((billing = ANY (ARRAY['metered'::text, 'subscription'::text]))),
    CONSTRAINT workflow_runs_cache_write_tokens_check CHECK ((cache_write_tokens >= 0)),
    CONSTRAINT workflow_runs_cost_source_check CHECK ((cost_source = ANY (ARRAY['reported'::text, 'table'::text, 'runtime'::text]))),
    CONSTRAINT workflow_runs_pkey PRIMARY KEY (id),
    CONSTRAINT workflow_runs_task_id_fkey FOREIGN KEY (task_id) REFERENCES tasks(id) ON DELETE SET NULL
);
CREATE INDEX workflow_runs_claimed ON public.workflow_runs USING btree (COALESCE(heartbeat_at, claimed_at, dispatched_at)) WHERE (status = 'claimed'::text);
CREATE INDEX workflow_runs_cost_top ON public.workflow_runs USING btree (cost_estimate DESC, id) WHERE (cost_estimate IS NOT NULL);
CREATE INDEX workflow_runs_dispatched ON public.workflow_runs USING btree (dispatched_at) WHERE (status = 'dispatched'::text);
CREATE INDEX workflow_runs_finished ON public.workflow_runs USING btree (finished_at) WHERE (finished_at IS NOT NULL);
CREATE INDEX workflow_runs_gateway_session ON public.workflow_runs USING btree (gateway_session_id) WHERE (gateway_session_id IS NOT NULL);
CREATE INDEX workflow_runs_live_by_target ON public.workflow_runs USING btree (target_agent_id) WHERE (status = ANY (ARRAY['dispatched'::text, 'claimed'::text, 'running'::text, 'waiting_for_approval'::text]));
CREATE INDEX workflow_runs_live_by_type ON public.workflow_runs USING btree (workflow_type) WHERE (status = ANY (ARRAY['dispatched'::text, 'claimed'::text, 'running'::text, 'waiting_for_approval'::text]));
CREATE INDEX workflow_runs_owner ON public.workflow_runs USING btree (owner_agent_id, status) WHERE (owner_agent_id IS NOT NULL);
CREATE INDEX workflow_runs_running ON public.workflow_runs USING btree (started_at) WHERE (status = 'running'::text);
CREATE INDEX workflow_runs_status ON public.workflow_runs USING btree (status, created_at);
CREATE INDEX workflow_runs_target ON public.workflow_runs USING btree (target_agent_id, status);
CREATE INDEX workflow_runs_task ON public.workflow_runs USING btree (task_id, created_at DESC);
CREATE INDEX workflow_runs_type ON public.workflow_runs USING btree (workflow_type, created_at);
CREATE INDEX workflow_runs_usage_agent ON public.workflow_runs USING btree (COALESCE(owner_agent_id, target_agent_id), COALESCE(reported_at, started_at, created_at));
CREATE INDEX workflow_runs_usage_day ON public.workflow_runs USING btree (COALESCE(reported_at, started_at, created_at));
CREATE TRIGGER run_runtime_usage_queue AFTER UPDATE ON public.workflow_runs REFERENCING NEW TABLE AS run_runtime_usage_changed FOR EACH STATEMENT EXECUTE FUNCTION run_runtime_usage_queue();
CREATE TRIGGER run_usage_delete AFTER DELETE ON public.workflow_runs REFERENCING OLD TABLE AS run_usage_old FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_delete();
CREATE TRIGGER run_usage_insert AFTER INSERT ON public.workflow_runs REFERENCING NEW TABLE AS run_usage_new FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_insert();
CREATE TRIGGER run_usage_update AFTER UPDATE ON public.workflow_runs REFERENCING OLD TABLE AS run_usage_old NEW TABLE AS run_usage_new FOR EACH STATEMENT EXECUTE FUNCTION run_usage_after_update();
CREATE TRIGGER workflow_runs_touch BEFORE UPDATE ON public.workflow_runs FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_steps (
    id uuid NOT NULL,
    run_id uuid NOT NULL,
    step_name text NOT NULL,
    step_order integer NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    error_message text,
    output jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workflow_steps_pkey PRIMARY KEY (id),
    CONSTRAINT workflow_steps_run_id_step_order_key UNIQUE (run_id, step_order),
    CONSTRAINT workflow_steps_step_order_check CHECK ((step_order >= 0)),
    CONSTRAINT workflow_steps_run_id_fkey FOREIGN KEY (run_id) REFERENCES workflow_runs(id) ON DELETE CASCADE
);
CREATE TRIGGER workflow_steps_touch BEFORE UPDATE ON public.workflow_steps FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflow_templates (
    name text NOT NULL,
    display_name text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    steps jsonb DEFAULT '[]'::jsonb NOT NULL,
    department_id text,
    ui_category text,
    is_active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    exclusive_per_task boolean DEFAULT false NOT NULL,
    CONSTRAINT workflow_templates_name_check CHECK ((name ~ '^[a-z0-9-]+$'::text)),
    CONSTRAINT workflow_templates_pkey PRIMARY KEY (name)
);
CREATE INDEX workflow_templates_category ON public.workflow_templates USING btree (ui_category);
CREATE INDEX workflow_templates_department ON public.workflow_templates USING btree (department_id);
CREATE TRIGGER workflow_templates_touch BEFORE UPDATE ON public.workflow_templates FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workflows (
    id uuid NOT NULL,
    name text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    states jsonb DEFAULT '["backlog", "ready", "in_progress", "blocked", "review", "completed"]'::jsonb NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workflows_pkey PRIMARY KEY (id)
);
CREATE TRIGGER workflows_touch BEFORE UPDATE ON public.workflows FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE TABLE workspaces (
    id uuid NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    icon text,
    color text,
    description text DEFAULT ''::text NOT NULL,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    sort_order integer DEFAULT 0 NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workspaces_pkey PRIMARY KEY (id),
    CONSTRAINT workspaces_slug_key UNIQUE (slug)
);
CREATE UNIQUE INDEX workspaces_one_default ON public.workspaces USING btree (is_default) WHERE is_default;
CREATE TRIGGER workspaces_touch BEFORE UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE OR REPLACE FUNCTION public.audit_search_enqueue()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM audit_search s USING new_rows n WHERE s.audit_id = n.id;
  END IF;
  INSERT INTO audit_search_pending (audit_id) SELECT id FROM new_rows ON CONFLICT DO NOTHING;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.audit_search_fold(max_rows integer)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  moved integer;
  search_index regclass := to_regclass('audit_search_text_trgm');
BEGIN
  WITH picked AS (
    DELETE FROM audit_search_pending p
     WHERE p.audit_id IN (SELECT audit_id FROM audit_search_pending ORDER BY audit_id LIMIT max_rows FOR UPDATE SKIP LOCKED)
    RETURNING p.audit_id),
  indexed AS (
    INSERT INTO audit_search (audit_id, search_text)
    SELECT a.id, audit_search_text(a.actor, a.action, a.entity_type, a.old_value, a.new_value)
      FROM audit_log a JOIN picked ON picked.audit_id = a.id
    ON CONFLICT (audit_id) DO UPDATE SET search_text = EXCLUDED.search_text
    RETURNING 1)
  SELECT count(*)::int INTO moved FROM picked;
  IF moved > 0 AND search_index IS NOT NULL AND pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = search_index), 'USAGE') THEN
    PERFORM gin_clean_pending_list(search_index);
  END IF;
  RETURN moved;
END $function$;

CREATE OR REPLACE FUNCTION public.audit_search_forget()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE audit_search, audit_search_pending;
  ELSE
    DELETE FROM audit_search s USING old_rows o WHERE s.audit_id = o.id;
    DELETE FROM audit_search_pending p USING old_rows o WHERE p.audit_id = o.id;
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.audit_search_text(actor text, action text, entity_type text, old_value jsonb, new_value jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT lower(actor || ' ' || action || ' ' || entity_type || ' ' || coalesce(old_value::text, '') || ' ' || coalesce(new_value::text, ''))
$function$;

CREATE OR REPLACE FUNCTION public.claim_dispatched_run(p_run uuid, p_session text, p_agent text, p_actor text, p_at text, p_snapshot text, p_claimable text[], p_claimed_status text, p_event_channel text, p_event_name text, p_event_payload text, p_secret_words text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  at timestamptz := p_at::timestamptz;
  before workflow_runs;
  after workflow_runs;
  state jsonb;
BEGIN
  SELECT * INTO before FROM workflow_runs WHERE id = p_run;
  IF NOT FOUND OR NOT before.status = ANY (p_claimable)
     OR (before.input_payload::text || coalesce(before.output_summary::text, '') || before.metadata::text) ~* p_secret_words THEN
    RETURN NULL;
  END IF;
  UPDATE workflow_runs r SET status = p_claimed_status, claim_session_id = p_session, gateway_session_id = p_session,
         gateway_session_active = true, owner_agent_id = coalesce(r.owner_agent_id, p_agent), claimed_at = at,
         heartbeat_at = at, updated_at = at
   WHERE r.id = p_run AND r.status = ANY (p_claimable) AND r IS NOT DISTINCT FROM before
  RETURNING * INTO after;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF after.task_id IS NOT NULL THEN
    UPDATE tasks SET active_workflow_run_id = after.id::text
     WHERE id = after.task_id AND active_workflow_run_id IS DISTINCT FROM after.id::text;
  END IF;
  state := run_state_json(after);
  INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, task_id, old_value, new_value)
  VALUES (at, p_actor, 'claimed', 'workflow_run', after.id::text, after.task_id, run_state_json(before), state);
  INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
  VALUES (p_snapshot::uuid, 'workflow_run', after.id::text, state, 'claimed', p_actor, at);
  INSERT INTO event_outbox (channel, name, payload)
  VALUES (p_event_channel, p_event_name, p_event_payload::jsonb || jsonb_build_object('workflowType', after.workflow_type, 'taskId', after.task_id));
  RETURN state;
END $function$;

CREATE OR REPLACE FUNCTION public.claim_free_task(p_task uuid, p_agent text, p_at text, p_lease_seconds integer, p_snapshot text, p_event_channel text, p_event_name text, p_event_payload text, p_secret_words text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  at timestamptz := p_at::timestamptz;
  before tasks;
  after tasks;
  claimed jsonb;
BEGIN
  SELECT * INTO before FROM tasks WHERE id = p_task AND deleted_at IS NULL;
  IF NOT FOUND OR before.locked_by IS NOT NULL OR before.metadata::text ~* p_secret_words THEN
    RETURN NULL;
  END IF;
  UPDATE tasks t SET locked_at = at, locked_by = p_agent, lease_expires_at = at + make_interval(secs => p_lease_seconds),
         lock_generation = t.lock_generation + 1, updated_at = at
   WHERE t.id = p_task AND t.locked_by IS NULL AND t.deleted_at IS NULL AND t IS NOT DISTINCT FROM before
  RETURNING * INTO after;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  INSERT INTO audit_log (timestamp, actor, action, entity_type, entity_id, project_id, task_id, old_value, new_value)
  VALUES (at, p_agent, 'claimed', 'task', after.id::text, after.project_id, after.id, task_state_json(before, true), task_state_json(after, true));
  claimed := task_state_json(after, false);
  INSERT INTO entity_snapshots (id, entity_type, entity_id, state, reason, actor, created_at)
  VALUES (p_snapshot::uuid, 'task', after.id::text, claimed, 'claimed', p_agent, at);
  INSERT INTO event_outbox (channel, name, payload) VALUES (p_event_channel, p_event_name, p_event_payload::jsonb);
  RETURN claimed;
END $function$;

CREATE OR REPLACE FUNCTION public.event_outbox_sequence(max_rows integer)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
DECLARE
  assigned bigint;
  last bigint;
  carried text;
BEGIN
  PERFORM pg_advisory_xact_lock(7461601);
  -- A new snapshot per statement (READ COMMITTED): this sees every pass that committed before the lock was ours.
  WITH waiting AS (
    SELECT id FROM event_outbox WHERE position IS NULL ORDER BY id LIMIT max_rows
  ), numbered AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM waiting
  ), counter AS (
    UPDATE event_outbox_watermark SET last_position = last_position + (SELECT count(*) FROM numbered)
     WHERE EXISTS (SELECT 1 FROM numbered)
     RETURNING last_position - (SELECT count(*) FROM numbered) AS base
  ), done AS (
    UPDATE event_outbox o SET position = counter.base + numbered.n
      FROM numbered, counter
     WHERE o.id = numbered.id
    RETURNING numbered.n, o.position, o.channel, o.name, o.payload
  )
  SELECT count(*),
         json_agg(json_build_object('id', position, 'channel', channel, 'name', name, 'payload', payload::text) ORDER BY position)
           FILTER (WHERE n <= 64)::text
    INTO assigned, carried
    FROM done;
  IF assigned = 0 THEN
    RETURN NULL;
  END IF;
  SELECT last_position INTO last FROM event_outbox_watermark;
  IF assigned <= 64 AND octet_length(carried) < 7900 THEN
    PERFORM pg_notify('task_server_outbox', carried);
  ELSE
    PERFORM pg_notify('task_server_outbox', last::text);
  END IF;
  RETURN last;
END $function$;

CREATE OR REPLACE FUNCTION public.js_iso(at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;

CREATE OR REPLACE FUNCTION public.js_number(x double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN x IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE x END
$function$;

CREATE OR REPLACE FUNCTION public.run_runtime_usage_queue()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO run_runtime_usage_pending (run_id, finished_at)
  SELECT n.id, n.finished_at FROM run_runtime_usage_changed n
   WHERE n.finished_at IS NOT NULL AND n.status IN ('completed', 'failed', 'cancelled', 'timed_out')
     AND n.cost_estimate IS NULL AND n.input_tokens IS NULL AND n.output_tokens IS NULL AND n.cost_source IS NULL
     AND (n.gateway_session_id IS NOT NULL OR n.claim_session_id IS NOT NULL OR cardinality(n.session_history) > 0)
     AND NOT EXISTS (SELECT 1 FROM run_runtime_usage u WHERE u.run_id = n.id)
  ON CONFLICT (run_id) DO NOTHING;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.run_state_json(r workflow_runs)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
    'id', r.id, 'workflow_type', r.workflow_type, 'status', r.status,
    'task_id', r.task_id, 'current_step', r.current_step, 'owner_agent_id', r.owner_agent_id,
    'target_agent_id', r.target_agent_id, 'input_payload', r.input_payload, 'output_summary', r.output_summary,
    'dispatch_attempts', r.dispatch_attempts, 'gateway_session_id', r.gateway_session_id, 'gateway_session_active', r.gateway_session_active,
    'claim_session_id', r.claim_session_id, 'session_history', r.session_history, 'retry_count', r.retry_count,
    'dispatched_at', js_iso(r.dispatched_at), 'claimed_at', js_iso(r.claimed_at), 'heartbeat_at', js_iso(r.heartbeat_at),
    'started_at', js_iso(r.started_at), 'finished_at', js_iso(r.finished_at), 'cost_estimate', js_number(r.cost_estimate),
    'input_tokens', r.input_tokens, 'output_tokens', r.output_tokens, 'cached_tokens', r.cached_tokens,
    'model_id', r.model_id, 'currency', r.currency, 'reported_at', js_iso(r.reported_at),
    'last_error', r.last_error, 'created_by', r.created_by, 'metadata', r.metadata,
    'created_at', js_iso(r.created_at), 'updated_at', js_iso(r.updated_at), 'error_class', r.error_class,
    'cache_write_tokens', r.cache_write_tokens, 'cost_source', r.cost_source, 'billing', r.billing)
$function$;

CREATE OR REPLACE FUNCTION public.run_usage_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_compact()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_rebuild()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_task_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.run_usage_task_moved()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.task_json_segments(id uuid, project_id uuid, title text, description text, status text, priority text, owner text, due_date timestamp with time zone, start_date timestamp with time zone, parent_task_id uuid, dependency_ids uuid[], labels text[], created_at timestamp with time zone, updated_at timestamp with time zone, completed_at timestamp with time zone, recurrence_rule text, deleted_at timestamp with time zone, archived_at timestamp with time zone, locked_at timestamp with time zone, locked_by text, retry_count integer, status_updated_at timestamp with time zone, active_workflow_run_id text, lease_expires_at timestamp with time zone, lock_generation integer)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
AS $function$
BEGIN
  RETURN
    '"id":' || coalesce('"' || id::text || '"', 'null')
    || ',"project_id":' || coalesce('"' || project_id::text || '"', 'null')
    || ',"title":' || coalesce(to_json(title)::text, 'null')
    || ',"description":' || coalesce(to_json(description)::text, 'null')
    || ',"status":' || coalesce(to_json(status)::text, 'null')
    || ',"priority":' || coalesce(to_json(priority)::text, 'null')
    || ',"owner":' || coalesce(to_json(owner)::text, 'null')
    || ',"due_date":' || coalesce('"' || to_char(due_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"start_date":' || coalesce('"' || to_char(start_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || chr(1) || '"parent_task_id":' || coalesce('"' || parent_task_id::text || '"', 'null')
    || ',"dependency_ids":' || coalesce(to_json(dependency_ids)::text, 'null')
    || ',"labels":' || coalesce(to_json(labels)::text, 'null')
    || ',"created_at":' || coalesce('"' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"updated_at":' || coalesce('"' || to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"completed_at":' || coalesce('"' || to_char(completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"recurrence_rule":' || coalesce(to_json(recurrence_rule)::text, 'null')
    || chr(1) || '"deleted_at":' || coalesce('"' || to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"archived_at":' || coalesce('"' || to_char(archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"locked_at":' || coalesce('"' || to_char(locked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"locked_by":' || coalesce(to_json(locked_by)::text, 'null')
    || ',"retry_count":' || coalesce(retry_count::text, 'null')
    || ',"status_updated_at":' || coalesce('"' || to_char(status_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"active_workflow_run_id":' || coalesce(to_json(active_workflow_run_id)::text, 'null')
    || ',"lease_expires_at":' || coalesce('"' || to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"lock_token":' || coalesce(lock_generation::text, 'null');
END
$function$;

CREATE OR REPLACE FUNCTION public.task_json_text(runs text, estimated_effort double precision, actual_effort double precision, metadata jsonb)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE PARALLEL SAFE
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.task_state_json(t tasks, redacted boolean)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT to_jsonb(t) - 'lock_generation' - 'json_segments' || jsonb_build_object(
    'due_date', js_iso(t.due_date), 'start_date', js_iso(t.start_date), 'created_at', js_iso(t.created_at),
    'updated_at', js_iso(t.updated_at), 'completed_at', js_iso(t.completed_at), 'deleted_at', js_iso(t.deleted_at),
    'archived_at', js_iso(t.archived_at), 'locked_at', js_iso(t.locked_at), 'status_updated_at', js_iso(t.status_updated_at),
    'lease_expires_at', js_iso(t.lease_expires_at),
    'estimated_effort', js_number(t.estimated_effort), 'actual_effort', js_number(t.actual_effort),
    'lock_token', CASE WHEN redacted THEN to_jsonb('[REDACTED]'::text) ELSE to_jsonb(t.lock_generation) END)
$function$;

CREATE OR REPLACE FUNCTION public.touch_updated_at()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF current_setting('task_server.restoring', true) = 'on' THEN
    RETURN NEW;
  END IF;
  IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END $function$;
