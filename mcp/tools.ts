import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { TaskServerClient, UpstreamReply } from './task-server-client';
import { argumentsObject, flag, integerFrom, isoDay, oneOf, optionalText, requiredText, uuidArgument } from './tool-arguments';

/** What a tool returns: a JSON payload, flagged as an error result or not. */
export interface ToolResult {
  payload: unknown;
  isError: boolean;
}

export interface Tool {
  name: string;
  description: string;
  mutating: boolean;
  input: z.ZodType;
  run(args: never, client: TaskServerClient): Promise<ToolResult>;
}

function defineTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  mutating?: boolean;
  input: S;
  run(args: z.output<S>, client: TaskServerClient): Promise<ToolResult>;
}): Tool {
  return { mutating: false, ...tool } as Tool;
}

const ok = (payload: unknown): ToolResult => ({ payload, isError: false });
const failed = (payload: unknown): ToolResult => ({ payload, isError: true });

export const AUTH_HINT = 'the task server refused the bearer token: set DASHBOARD_AUTH_TOKEN in this tool server\'s environment to the token the task server was started with';

/**
 * Spec 03 failure mapping: 404 is a normal {error: not_found}; 401 an auth_failed error with a
 * hint (never retried); bodies of 2xx, degraded ones included, pass through verbatim; a 503
 * refusal is a structured unavailable error; an unreachable server is task_server_unreachable.
 */
export function fromReply(reply: UpstreamReply, notFoundExtra: (body: unknown) => Record<string, unknown> = () => ({})): ToolResult {
  if (!reply.reached) return failed({ error: 'task_server_unreachable', message: reply.reason });
  const body = reply.body as Record<string, unknown> | null;
  if (reply.status >= 200 && reply.status < 300) return ok(reply.body);
  if (reply.status === 401) return failed({ error: 'auth_failed', hint: AUTH_HINT });
  if (reply.status === 404) return ok({ error: 'not_found', ...notFoundExtra(reply.body) });
  if (reply.status === 503) return failed({ error: 'unavailable', status: 503, ...(isObject(body) ? body : { detail: body }) });
  if (reply.status === 403) return failed(isObject(body) ? body : { error: 'forbidden', detail: body });
  return failed({ error: 'upstream_error', status: reply.status, ...(isObject(body) ? { detail: body } : { detail: body }) });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** One section of a composed tool: its data, or a marker saying it is unavailable and why. */
async function section(
  name: string,
  client: TaskServerClient,
  path: string,
  shape: (body: unknown) => unknown = (body) => body,
): Promise<{ name: string; value: unknown; reachable: boolean }> {
  const reply = await client.request('GET', path);
  if (reply.reached && reply.status >= 200 && reply.status < 300) return { name, value: shape(reply.body), reachable: true };
  const reason = !reply.reached ? reply.reason : reply.status === 401 ? 'auth_failed' : `task server answered ${reply.status}`;
  return { name, value: { section: name, status: 'unavailable', reason }, reachable: reply.reached };
}

/** Issue 15's part of the dispatcher stats: who is paused, and what the last tick held back and why. */
function dispatchSafety(body: unknown): unknown {
  const stats = (body ?? {}) as { paused_agents?: unknown; capped?: unknown; last_tick_summary?: { heldByPause?: unknown; leasesExpired?: unknown } | null };
  return {
    paused_agents: stats.paused_agents ?? [],
    capped: stats.capped ?? null,
    held_by_pause: stats.last_tick_summary?.heldByPause ?? null,
    leases_expired: stats.last_tick_summary?.leasesExpired ?? null,
  };
}

/** Statuses of the database-backed task list (spec 01 Task). */
const taskStatuses = [
  'backlog', 'ready', 'in_progress', 'blocked', 'review', 'completed', 'archived', 'topic_candidate', 'drafting',
  'image_pending', 'image_ready', 'qa_pending', 'ready_to_publish', 'published', 'retrying', 'failed', 'cancelled',
] as const;

const missionSections = ['health', 'agents', 'queue', 'runs', 'blockers', 'cron', 'costs', 'budgets'] as const;
type MissionSection = (typeof missionSections)[number];

/** Governed actions: every mutating tool goes through POST /api/actions/execute with a fresh actionId. */
async function executeAction(client: TaskServerClient, kind: string, targetId: string, params: Record<string, unknown>): Promise<ToolResult> {
  const reply = await client.request('POST', '/api/actions/execute', { actionId: randomUUID(), kind, targetId, params });
  return fromReply(reply, (body) => (isObject(body) && body.receipt ? { receipt: body.receipt } : {}));
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

export const tools: readonly Tool[] = [
  defineTool({
    name: 'list_tasks',
    description: 'Tasks of the dashboard, optionally of one project and one exact status; archived tasks only when asked.',
    input: argumentsObject({
      status: optionalText('status', 100).optional(),
      project_id: uuidArgument('project_id').optional(),
      limit: integerFrom('limit', 1, 200).default(50),
      include_archived: flag('include_archived').default(false),
    }),
    async run(args, client) {
      // /api/tasks/all returns every task that is not soft-deleted, archived ones included; filtering is ours.
      const reply = await client.request('GET', `/api/tasks/all${query({ project_id: args.project_id })}`);
      if (!reply.reached || reply.status !== 200 || !Array.isArray(reply.body)) return fromReply(reply);
      const matching = (reply.body as Array<Record<string, unknown>>).filter(
        (t) =>
          (args.include_archived || (t.status !== 'archived' && !t.archived_at)) &&
          (args.status === undefined || t.status === args.status),
      );
      const tasks = matching.slice(0, args.limit);
      return ok({ tasks, total: matching.length, truncated: matching.length > tasks.length, include_archived: args.include_archived });
    },
  }),
  defineTool({
    name: 'get_task',
    description: 'One task with its dependencies; {error: "not_found"} for an unknown id.',
    input: argumentsObject({ task_id: uuidArgument('task_id') }),
    async run(args, client) {
      return fromReply(await client.request('GET', `/api/tasks/${args.task_id}`));
    },
  }),
  defineTool({
    name: 'get_costs_summary',
    description: 'Daily cost and token totals over the last `days` days (1 to 90).',
    input: argumentsObject({ days: integerFrom('days', 1, 90).default(7) }),
    async run(args, client) {
      return fromReply(await client.request('GET', `/api/costs/summary${query({ days: args.days })}`));
    },
  }),
  defineTool({
    name: 'get_cost_rollup',
    description: 'Costs grouped by agent, department or workflow type over the last `days` days.',
    input: argumentsObject({
      group_by: oneOf('group_by', ['agent', 'department', 'workflow_type']).default('agent'),
      days: integerFrom('days', 1, 90).default(7),
    }),
    async run(args, client) {
      return fromReply(await client.request('GET', `/api/costs/rollup${query({ group_by: args.group_by, days: args.days })}`));
    },
  }),
  defineTool({
    name: 'list_budgets',
    description: 'Budgets with their derived spend, percentage of cap and status.',
    input: argumentsObject({}),
    async run(_args, client) {
      return fromReply(await client.request('GET', '/api/budgets'));
    },
  }),
  defineTool({
    name: 'get_budget_ledger',
    description: 'Spend and ledger events of one budget for a period ("current" or YYYY-MM).',
    input: argumentsObject({
      budget_id: uuidArgument('budget_id'),
      period: z
        .string({ error: 'period must be "current" or a month in the form YYYY-MM' })
        .regex(/^(current|\d{4}-(0[1-9]|1[0-2]))$/, { error: 'period must be "current" or a month in the form YYYY-MM' })
        .default('current'),
    }),
    async run(args, client) {
      return fromReply(await client.request('GET', `/api/budgets/${args.budget_id}/ledger${query({ period: args.period })}`));
    },
  }),
  defineTool({
    name: 'list_snapshots',
    description: 'Full-state snapshots on disk, newest first (works without the database).',
    input: argumentsObject({}),
    async run(_args, client) {
      return fromReply(await client.request('GET', '/api/snapshots'));
    },
  }),
  defineTool({
    name: 'get_fleet_status',
    description:
      'Health, agent liveness (with dispatch pauses), dispatch safety (agents paused by a provider quota, runs held back by concurrency caps), running runs and (optionally) stuck runs in one answer; a failing section is marked unavailable.',
    input: argumentsObject({
      include_stuck: flag('include_stuck').default(true),
      running_limit: integerFrom('running_limit', 1, 100).default(20),
    }),
    async run(args, client) {
      const parts = await Promise.all([
        section('health', client, '/api/health-status'),
        section('agents', client, '/api/agents/status'),
        section('dispatch_safety', client, '/api/workflow-runs/dispatcher/stats', dispatchSafety),
        section('running_runs', client, `/api/workflow-runs${query({ status: 'running', limit: args.running_limit })}`),
        ...(args.include_stuck ? [section('stuck_runs', client, '/api/workflow-runs/stuck')] : []),
      ]);
      return composed(parts);
    },
  }),
  defineTool({
    name: 'get_mission_control_summary',
    description: 'The operator overview: health, agents, task queue, runs, blockers, cron, costs and budgets (or a subset), fetched in parallel.',
    input: argumentsObject({
      sections: z
        .array(oneOf('each section', missionSections), { error: `sections must be a list drawn from ${missionSections.join(', ')}` })
        .min(1, { error: `sections must name at least one of ${missionSections.join(', ')}` })
        .optional(),
    }),
    async run(args, client) {
      const wanted = new Set<MissionSection>(args.sections ?? missionSections);
      const jobs: Array<Promise<{ name: string; value: unknown; reachable: boolean }>> = [];
      if (wanted.has('health')) jobs.push(section('health', client, '/api/health-status'));
      if (wanted.has('agents')) {
        jobs.push(
          Promise.all([section('runtime', client, '/api/runtime/agents'), section('liveness', client, '/api/agents/status')]).then(
            ([runtime, liveness]) => ({ name: 'agents', value: { runtime: runtime.value, liveness: liveness.value }, reachable: runtime.reachable || liveness.reachable }),
          ),
        );
      }
      if (wanted.has('queue')) jobs.push(queueSection(client));
      if (wanted.has('runs')) {
        jobs.push(
          Promise.all([
            section('running', client, `/api/workflow-runs${query({ status: 'running' })}`),
            section('stuck', client, '/api/workflow-runs/stuck'),
            section('failed', client, `/api/workflow-runs${query({ status: 'failed' })}`),
          ]).then(([running, stuck, failedRuns]) => ({
            name: 'runs',
            value: { running: running.value, stuck: stuck.value, failed: failedRuns.value },
            reachable: running.reachable || stuck.reachable || failedRuns.reachable,
          })),
        );
      }
      if (wanted.has('blockers')) jobs.push(section('blockers', client, '/api/blockers/summary'));
      if (wanted.has('cron')) jobs.push(section('cron', client, '/api/cron/jobs'));
      if (wanted.has('costs')) jobs.push(section('costs', client, `/api/costs/summary${query({ days: 7 })}`));
      if (wanted.has('budgets')) jobs.push(section('budgets', client, '/api/budgets'));
      return composed(await Promise.all(jobs));
    },
  }),
  defineTool({
    name: 'search_audit',
    description: 'Search the audit log, newest first, with the filters of GET /api/audit.',
    input: argumentsObject({
      q: optionalText('q', 500).optional(),
      actor: optionalText('actor', 200).optional(),
      action: optionalText('action', 200).optional(),
      task_id: uuidArgument('task_id').optional(),
      start_date: isoDay('start_date').optional(),
      end_date: isoDay('end_date').optional(),
      entity_type: optionalText('entity_type', 100).optional(),
      governance_only: flag('governance_only').default(false),
      limit: integerFrom('limit', 1, 500).default(100),
      offset: z
        .number({ error: 'offset must be an integer of at least 0' })
        .int({ error: 'offset must be an integer of at least 0' })
        .min(0, { error: 'offset must be an integer of at least 0' })
        .default(0),
    }),
    async run(args, client) {
      return fromReply(await client.request('GET', `/api/audit${query(args)}`));
    },
  }),
  defineTool({
    name: 'create_task',
    description: 'Create a task through the governed action task.create (yields a receipt and an audit record).',
    mutating: true,
    input: argumentsObject({
      title: requiredText('title', 500),
      project_id: uuidArgument('project_id'),
      description: optionalText('description').optional(),
      owner_agent: optionalText('owner_agent', 200).optional(),
      status: oneOf('status', taskStatuses).optional(),
      due_date: z
        .union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'due_date must be an ISO date (YYYY-MM-DD or a full ISO timestamp)' })
        .optional(),
    }),
    async run(args, client) {
      const { project_id, ...params } = args;
      const result = await executeAction(client, 'task.create', project_id, withoutUndefined(params));
      return receiptResult(result);
    },
  }),
  defineTool({
    name: 'update_task',
    description: 'Update fields of a task through the governed action task.update; the patch is passed through unchanged.',
    mutating: true,
    input: argumentsObject({
      task_id: uuidArgument('task_id'),
      patch: z.record(z.string(), z.unknown(), { error: 'patch must be an object of field updates' }),
    }),
    async run(args, client) {
      return receiptResult(await executeAction(client, 'task.update', args.task_id, { patch: args.patch }));
    },
  }),
  defineTool({
    name: 'create_snapshot',
    description: 'Write one full-state snapshot artifact through the governed action snapshot.create (needs the database).',
    mutating: true,
    input: argumentsObject({ name: optionalText('name', 120).optional() }),
    async run(args, client) {
      return receiptResult(await executeAction(client, 'snapshot.create', 'fleet', withoutUndefined({ name: args.name })));
    },
  }),
];

/** Executed actions answer {receipt}; the tool shows the parts an agent acts on, and replays' duplicate flag. */
function receiptResult(result: ToolResult): ToolResult {
  const body = result.payload as Record<string, unknown> | null;
  if (result.isError || !isObject(body) || !isObject(body.receipt) || 'error' in body) return result;
  const receipt = body.receipt as Record<string, unknown>;
  return {
    isError: false,
    payload: {
      receipt: { action_id: receipt.action_id, kind: receipt.kind, outcome: receipt.outcome, detail: receipt.detail },
      ...(body.duplicate ? { duplicate: true } : {}),
    },
  };
}

async function queueSection(client: TaskServerClient) {
  const reply = await client.request('GET', '/api/tasks/all');
  if (!reply.reached || reply.status !== 200 || !Array.isArray(reply.body)) {
    const reason = !reply.reached ? reply.reason : `task server answered ${reply.status}`;
    return { name: 'queue', value: { section: 'queue', status: 'unavailable', reason }, reachable: reply.reached };
  }
  const queued = (reply.body as Array<Record<string, unknown>>).filter((t) => t.status === 'ready');
  return { name: 'queue', value: { tasks: queued.slice(0, 200), total: queued.length, truncated: queued.length > 200 }, reachable: true };
}

function composed(parts: Array<{ name: string; value: unknown; reachable: boolean }>): ToolResult {
  if (parts.length && parts.every((p) => !p.reachable)) {
    const first = parts[0]!.value as { reason?: string };
    return failed({ error: 'task_server_unreachable', message: first.reason });
  }
  return ok(Object.fromEntries(parts.map((p) => [p.name, p.value])));
}
