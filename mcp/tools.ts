import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { ActionKind } from '../core/actions/catalog';
import { taskColumns, taskStatuses } from '../core/tasks/task';
import type { TaskServerClient, UpstreamReply } from './task-server-client';
import { argumentsObject, flag, integerFrom, isoDay, oneOf, optionalText, requiredText, uuidArgument } from './tool-arguments';

/** What a tool returns: a JSON payload, flagged as an error result or not. */
export interface ToolResult {
  payload: unknown;
  isError: boolean;
}

/** How a tool touches the dashboard, as MCP's annotations say it (the hints clients show before a call). */
type Effect = 'read' | 'create' | 'overwrite';

export interface Tool {
  name: string;
  title: string;
  description: string;
  mutating: boolean;
  effect: Effect;
  input: z.ZodType;
  /** JSON Schema of a successful result's top level; every key optional, since a 404 answers {error: not_found}. */
  output: Record<string, unknown>;
  run(args: never, client: TaskServerClient): Promise<ToolResult>;
}

function defineTool<S extends z.ZodType>(tool: {
  name: string;
  title: string;
  description: string;
  effect?: Effect;
  input: S;
  output: Record<string, unknown>;
  run(args: z.output<S>, client: TaskServerClient): Promise<ToolResult>;
}): Tool {
  const effect = tool.effect ?? 'read';
  return { ...tool, effect, mutating: effect !== 'read' } as Tool;
}

/**
 * A tool that answers a task-server body as it is says only that it is an object (its shape is the
 * route's, in GET /api/openapi.json): naming its keys here would cost tools/list bytes for nothing.
 */
const passThroughOutput: Record<string, unknown> = { type: 'object' };

type JsonType = 'object' | 'array' | 'number' | 'integer' | 'boolean' | 'string' | 'null';

/** A result object whose listed keys have these JSON types; other keys may appear. */
function resultWith(keys: Record<string, JsonType | JsonType[]>): Record<string, unknown> {
  // a union is spelled anyOf: strict ajv (as MCP clients run it) refuses a list of types
  const schemaOf = (type: JsonType | JsonType[]) => (Array.isArray(type) ? { anyOf: type.map((t) => ({ type: t })) } : { type });
  return { type: 'object', properties: Object.fromEntries(Object.entries(keys).map(([k, type]) => [k, schemaOf(type)])) };
}

/** A composed result: one key per section, each the route's body or an {status: "unavailable"} marker. */
function sectionsOutput(sections: readonly string[]): Record<string, unknown> {
  return { type: 'object', properties: Object.fromEntries(sections.map((name) => [name, {}])) };
}

const receiptOutput = resultWith({ receipt: 'object', duplicate: 'boolean' });

const ok = (payload: unknown): ToolResult => ({ payload, isError: false });
const failed = (payload: unknown): ToolResult => ({ payload, isError: true });

export const AUTH_HINT =
  "the task server refused the bearer token: set DASHBOARD_AUTH_TOKEN in this tool server's environment to the token the task server was started with, or to a live agent token";

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

/** One section of a composed tool: its data, or a marker saying it is unavailable and why. */
async function section(
  name: string,
  client: TaskServerClient,
  call: Parameters<TaskServerClient['reply']>[0],
  shape: (body: unknown) => unknown = (body) => body,
): Promise<{ name: string; value: unknown; reachable: boolean }> {
  const reply = await client.reply(call);
  if (reply.reached && reply.status >= 200 && reply.status < 300) return { name, value: shape(reply.body), reachable: true };
  const reason = !reply.reached ? reply.reason : reply.status === 401 ? 'auth_failed' : `task server answered ${reply.status}`;
  return { name, value: { section: name, status: 'unavailable', reason }, reachable: reply.reached };
}

/** The dispatch-safety part of the dispatcher stats: who is paused, and what the last tick held back and why. */
function dispatchSafety(body: unknown): unknown {
  const stats = (body ?? {}) as {
    paused_agents?: unknown;
    capped?: unknown;
    last_tick_summary?: { heldByPause?: unknown; leasesExpired?: unknown } | null;
  };
  return {
    paused_agents: stats.paused_agents ?? [],
    capped: stats.capped ?? null,
    held_by_pause: stats.last_tick_summary?.heldByPause ?? null,
    leases_expired: stats.last_tick_summary?.leasesExpired ?? null,
  };
}

/** The keys of a task row as the API answers it (`lock_generation AS lock_token` is answered as lock_token). */
const taskFields = taskColumns.split(', ').map((column) => column.split(' AS ').at(-1)!);
const taskFieldSet: ReadonlySet<string> = new Set(taskFields);
const fieldsError = `fields must be "all" or a list drawn from ${taskFields.join(', ')}`;
/** What an agent needs to pick work; full rows cost ~180 tokens each. */
export const summaryTaskFields = [
  'id',
  'project_id',
  'title',
  'status',
  'priority',
  'owner',
  'due_date',
  'labels',
  'dependency_ids',
  'updated_at',
] as const;

/** Fields task.update accepts in its patch (spec 01 Task, writable columns). */
const patchFields = [
  'title',
  'description',
  'status',
  'priority',
  'owner',
  'due_date',
  'start_date',
  'estimated_effort',
  'actual_effort',
  'parent_task_id',
  'dependency_ids',
  'labels',
  'recurrence_rule',
  'metadata',
  'project_id',
] as const;

const dueDateError = 'due_date must be an ISO date (YYYY-MM-DD or a full ISO timestamp)';
const isoDate = z.iso.date();
const isoTimestamp = z.iso.datetime({ offset: true });

const missionSections = ['health', 'agents', 'queue', 'runs', 'blockers', 'cron', 'costs', 'budgets'] as const;
type MissionSection = (typeof missionSections)[number];

/** Governed actions: every mutating tool goes through POST /api/actions/execute with a fresh actionId. */
async function executeAction(
  client: TaskServerClient,
  kind: ActionKind,
  targetId: string,
  params: Record<string, unknown>,
): Promise<ToolResult> {
  const reply = await client.reply(client.api.POST('/api/actions/execute', { body: { actionId: randomUUID(), kind, targetId, params } }));
  return fromReply(reply, (body) => (isObject(body) && body.receipt ? { receipt: body.receipt } : {}));
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

export const tools: readonly Tool[] = [
  defineTool({
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Tasks of a project or status (archived only when asked), as summary rows unless `fields` says otherwise.',
    input: argumentsObject({
      status: oneOf('status', taskStatuses).optional().describe('only tasks with this status'),
      project_id: uuidArgument('project_id').optional().describe('only tasks of this project'),
      limit: integerFrom('limit', 1, 200).default(50).describe('most tasks returned'),
      include_archived: flag('include_archived').default(false).describe('also list archived tasks'),
      // the names are checked here and listed in the error; an enum of all 28 would cost ~450 bytes of tools/list
      fields: z
        .union([z.literal('all'), z.array(z.string().refine((f) => taskFieldSet.has(f), { error: fieldsError })).min(1)], {
          error: fieldsError,
        })
        .optional()
        .describe(`"all", or task field names; default ${summaryTaskFields.join(', ')}`),
    }),
    output: resultWith({ tasks: 'array', total: 'integer', truncated: 'boolean', include_archived: 'boolean' }),
    async run(args, client) {
      // /api/tasks/all returns every task that is not soft-deleted, archived ones included; filtering is ours.
      const reply = await client.reply(client.api.GET('/api/tasks/all', { params: { query: { project_id: args.project_id } } }));
      if (!reply.reached || reply.status !== 200 || !Array.isArray(reply.body)) return fromReply(reply);
      const matching = (reply.body as Array<Record<string, unknown>>).filter(
        (t) =>
          (args.include_archived || (t.status !== 'archived' && !t.archived_at)) && (args.status === undefined || t.status === args.status),
      );
      const fields = args.fields === 'all' ? undefined : (args.fields ?? summaryTaskFields);
      const tasks = matching
        .slice(0, args.limit)
        .map((t) => (fields ? Object.fromEntries(fields.filter((f) => f in t).map((f) => [f, t[f]])) : t));
      return ok({ tasks, total: matching.length, truncated: matching.length > tasks.length, include_archived: args.include_archived });
    },
  }),
  defineTool({
    name: 'get_task',
    title: 'Get a task',
    description: 'One task with its dependencies and subtasks; {error: "not_found"} for an unknown id.',
    input: argumentsObject({ task_id: uuidArgument('task_id').describe('the task id') }),
    output: passThroughOutput,
    async run(args, client) {
      return fromReply(await client.reply(client.api.GET('/api/tasks/{id}', { params: { path: { id: args.task_id } } })));
    },
  }),
  defineTool({
    name: 'get_costs_summary',
    title: 'Cost summary',
    description: 'Daily cost and token totals over the last `days` days.',
    input: argumentsObject({ days: integerFrom('days', 1, 90).default(7).describe('days back from today') }),
    output: passThroughOutput,
    async run(args, client) {
      return fromReply(await client.reply(client.api.GET('/api/costs/summary', { params: { query: { days: args.days } } })));
    },
  }),
  defineTool({
    name: 'get_cost_rollup',
    title: 'Cost rollup',
    description: 'Costs grouped by agent, department or workflow type over the last `days` days.',
    input: argumentsObject({
      group_by: oneOf('group_by', ['agent', 'department', 'workflow_type']).default('agent').describe('grouping key'),
      days: integerFrom('days', 1, 90).default(7).describe('days back from today'),
    }),
    output: passThroughOutput,
    async run(args, client) {
      return fromReply(
        await client.reply(client.api.GET('/api/costs/rollup', { params: { query: { group_by: args.group_by, days: args.days } } })),
      );
    },
  }),
  defineTool({
    name: 'list_budgets',
    title: 'List budgets',
    description: 'Budgets with their derived spend, percentage of cap and status.',
    input: argumentsObject({}),
    output: passThroughOutput,
    async run(_args, client) {
      return fromReply(await client.reply(client.api.GET('/api/budgets')));
    },
  }),
  defineTool({
    name: 'get_budget_ledger',
    title: 'Budget ledger',
    description: 'Spend and ledger events of one budget for a period.',
    output: passThroughOutput,
    input: argumentsObject({
      budget_id: uuidArgument('budget_id').describe('the budget id'),
      period: z
        .string({ error: 'period must be "current" or a month in the form YYYY-MM' })
        .regex(/^(current|\d{4}-(0[1-9]|1[0-2]))$/, { error: 'period must be "current" or a month in the form YYYY-MM' })
        .default('current')
        .describe('"current" or a month YYYY-MM'),
    }),
    async run(args, client) {
      return fromReply(
        await client.reply(
          client.api.GET('/api/budgets/{id}/ledger', { params: { path: { id: args.budget_id }, query: { period: args.period } } }),
        ),
      );
    },
  }),
  defineTool({
    name: 'list_snapshots',
    title: 'List snapshots',
    description: 'Full-state snapshots on disk, newest first (works without the database).',
    input: argumentsObject({}),
    output: passThroughOutput,
    async run(_args, client) {
      return fromReply(await client.reply(client.api.GET('/api/snapshots')));
    },
  }),
  defineTool({
    name: 'get_fleet_status',
    title: 'Fleet status',
    description:
      'Health, agent liveness, dispatch safety (quota pauses, runs held by caps), running and stuck runs; a failing section is marked unavailable.',
    input: argumentsObject({
      include_stuck: flag('include_stuck').default(true).describe('add the stuck runs section'),
      running_limit: integerFrom('running_limit', 1, 100).default(20).describe('most running runs listed'),
    }),
    output: sectionsOutput(['health', 'agents', 'dispatch_safety', 'running_runs', 'stuck_runs']),
    async run(args, client) {
      const parts = await Promise.all([
        section('health', client, client.api.GET('/api/health-status')),
        section('agents', client, client.api.GET('/api/agents/status')),
        section('dispatch_safety', client, client.api.GET('/api/workflow-runs/dispatcher/stats'), dispatchSafety),
        section(
          'running_runs',
          client,
          client.api.GET('/api/workflow-runs', { params: { query: { status: 'running', limit: args.running_limit } } }),
        ),
        ...(args.include_stuck ? [section('stuck_runs', client, client.api.GET('/api/workflow-runs/stuck'))] : []),
      ]);
      return composed(parts);
    },
  }),
  defineTool({
    name: 'get_mission_control_summary',
    title: 'Mission control summary',
    description: 'The operator overview, all sections or those named; a failing one is marked unavailable.',
    input: argumentsObject({
      sections: z
        .array(oneOf('each section', missionSections), { error: `sections must be a list drawn from ${missionSections.join(', ')}` })
        .min(1, { error: `sections must name at least one of ${missionSections.join(', ')}` })
        .optional()
        .describe('sections wanted; default all'),
    }),
    output: sectionsOutput(missionSections),
    async run(args, client) {
      const wanted = new Set<MissionSection>(args.sections ?? missionSections);
      const jobs: Array<Promise<{ name: string; value: unknown; reachable: boolean }>> = [];
      if (wanted.has('health')) jobs.push(section('health', client, client.api.GET('/api/health-status')));
      if (wanted.has('agents')) {
        jobs.push(
          Promise.all([
            section('runtime', client, client.api.GET('/api/runtime/agents')),
            section('liveness', client, client.api.GET('/api/agents/status')),
          ]).then(([runtime, liveness]) => ({
            name: 'agents',
            value: { runtime: runtime.value, liveness: liveness.value },
            reachable: runtime.reachable || liveness.reachable,
          })),
        );
      }
      if (wanted.has('queue')) jobs.push(queueSection(client));
      if (wanted.has('runs')) {
        jobs.push(
          Promise.all([
            section('running', client, client.api.GET('/api/workflow-runs', { params: { query: { status: 'running' } } })),
            section('stuck', client, client.api.GET('/api/workflow-runs/stuck')),
            section('failed', client, client.api.GET('/api/workflow-runs', { params: { query: { status: 'failed' } } })),
          ]).then(([running, stuck, failedRuns]) => ({
            name: 'runs',
            value: { running: running.value, stuck: stuck.value, failed: failedRuns.value },
            reachable: running.reachable || stuck.reachable || failedRuns.reachable,
          })),
        );
      }
      if (wanted.has('blockers')) jobs.push(section('blockers', client, client.api.GET('/api/blockers/summary')));
      if (wanted.has('cron')) jobs.push(section('cron', client, client.api.GET('/api/cron/jobs')));
      if (wanted.has('costs'))
        jobs.push(section('costs', client, client.api.GET('/api/costs/summary', { params: { query: { days: 7 } } })));
      if (wanted.has('budgets')) jobs.push(section('budgets', client, client.api.GET('/api/budgets')));
      return composed(await Promise.all(jobs));
    },
  }),
  defineTool({
    name: 'search_audit',
    title: 'Search the audit log',
    description: 'Audit rows, newest first, matching every filter given.',
    input: argumentsObject({
      q: optionalText('q', 500).optional().describe('text searched in action, actor and details'),
      actor: optionalText('actor', 200).optional().describe('exact actor name'),
      action: optionalText('action', 200).optional().describe('exact action, e.g. task.update'),
      task_id: uuidArgument('task_id').optional().describe('rows about this task'),
      start_date: isoDay('start_date').optional().describe('from this day, YYYY-MM-DD'),
      end_date: isoDay('end_date').optional().describe('through this day, YYYY-MM-DD'),
      entity_type: optionalText('entity_type', 100).optional().describe('e.g. task, project, workflow_run'),
      governance_only: flag('governance_only').default(false).describe('only governed-action rows'),
      limit: integerFrom('limit', 1, 500).default(100).describe('rows per page'),
      offset: z
        .number({ error: 'offset must be an integer of at least 0' })
        .int({ error: 'offset must be an integer of at least 0' })
        .min(0, { error: 'offset must be an integer of at least 0' })
        .default(0)
        .describe('rows skipped'),
    }),
    output: resultWith({ entries: 'array', count: 'integer', next_offset: ['integer', 'null'] }),
    async run(args, client) {
      // /api/audit answers a bare array; an MCP result's structured content must be an object
      // the audit route reads its query as strings
      const filters = {
        ...args,
        governance_only: String(args.governance_only) as 'true' | 'false',
        limit: String(args.limit),
        offset: String(args.offset),
      };
      const result = fromReply(await client.reply(client.api.GET('/api/audit', { params: { query: filters } })));
      if (result.isError || !Array.isArray(result.payload)) return result;
      const entries = result.payload;
      return ok({ entries, count: entries.length, next_offset: entries.length === args.limit ? args.offset + entries.length : null });
    },
  }),
  defineTool({
    name: 'create_task',
    title: 'Create a task',
    description: 'Create a task (governed action task.create: a receipt and an audit row).',
    effect: 'create',
    input: argumentsObject({
      title: requiredText('title', 500).describe('task title'),
      project_id: uuidArgument('project_id').describe('project the task belongs to'),
      description: optionalText('description').optional().describe('longer text'),
      owner_agent: optionalText('owner_agent', 200).optional().describe('agent that owns the task'),
      status: oneOf('status', taskStatuses).optional().describe('default backlog'),
      // one string checked against both forms: a union of two formats would cost tools/list ~80 bytes
      due_date: z
        .string({ error: dueDateError })
        .refine((v) => isoDate.safeParse(v).success || isoTimestamp.safeParse(v).success, { error: dueDateError })
        .optional()
        .describe('YYYY-MM-DD or ISO timestamp'),
    }),
    output: receiptOutput,
    async run(args, client) {
      const { project_id, ...params } = args;
      const result = await executeAction(client, 'task.create', project_id, withoutUndefined(params));
      return receiptResult(result);
    },
  }),
  defineTool({
    name: 'update_task',
    title: 'Update a task',
    description: 'Set fields of a task (governed action task.update).',
    effect: 'overwrite',
    input: argumentsObject({
      task_id: uuidArgument('task_id').describe('the task id'),
      patch: z
        .partialRecord(z.enum(patchFields), z.unknown(), {
          // a partial record reports unknown keys as unrecognized_keys, which its issue type does not declare
          error: (issue) => {
            const keys = (issue as { keys?: string[] }).keys;
            return keys
              ? `unknown patch field ${keys.join(', ')}; patch fields must be drawn from ${patchFields.join(', ')}`
              : 'patch must be an object of field updates';
          },
        })
        .describe('the fields to set'),
    }),
    output: receiptOutput,
    async run(args, client) {
      return receiptResult(await executeAction(client, 'task.update', args.task_id, { patch: args.patch }));
    },
  }),
  defineTool({
    name: 'create_snapshot',
    title: 'Create a snapshot',
    description: 'Write a full-state snapshot (governed action snapshot.create; needs the database).',
    effect: 'create',
    input: argumentsObject({ name: optionalText('name', 120).optional().describe('default snapshot-YYYYMMDD-HHmm') }),
    output: receiptOutput,
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
  const reply = await client.reply(client.api.GET('/api/tasks/all'));
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
