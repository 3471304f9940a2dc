/**
 * What a webhook may subscribe to, as data: the names of the events the outbox carries
 * (docs/events.md: both streams' names), and derived types worth paging someone for, each a rule
 * over one outbox event. `*` subscribes to every stream name (not to the derived types, which
 * would repeat them).
 */
export const streamEventNames = [
  'project:changed',
  'task:changed',
  'space:changed',
  'chat:message',
  'import:completed',
  'view:changed',
  'budget:changed',
  'prices:changed',
  'settings:changed',
  'restore:completed',
  'run-updated',
  'restore-progress',
  'action-update',
  'agent-status-changed',
  'agent-limits-changed',
  'workflow-template-updated',
  'budget-updated',
  'agent-billing-changed',
  'agent-token-changed',
] as const;

interface DerivedRule {
  /** The outbox event it reads. */
  from: (typeof streamEventNames)[number];
  /** Payload fields and the values any of which makes the event this type. */
  when: Readonly<Record<string, readonly string[]>>;
}

export const derivedEventTypes: Readonly<Record<string, DerivedRule>> = {
  'budget.breached': { from: 'budget-updated', when: { status: ['breached'] } },
  'budget.warned': { from: 'budget-updated', when: { status: ['warned'] } },
  'run.failed': { from: 'run-updated', when: { status: ['failed'] } },
  // the tick found the run stuck: not claimed in time (dispatched again) or silent after its claim (released)
  'run.stuck': { from: 'run-updated', when: { action: ['redispatched', 'released'] } },
  'run.timed_out': { from: 'run-updated', when: { status: ['timed_out'] } },
  'approval.pending': { from: 'run-updated', when: { action: ['approval_requested'] } },
  'agent.dispatch_paused': { from: 'agent-status-changed', when: { status: ['dispatch_paused'] } },
  'restore.completed': { from: 'restore:completed', when: {} },
};

export const ALL_STREAM_EVENTS = '*';

/** Every name a webhook's `events` may hold. */
export const webhookEventTypes: readonly string[] = [ALL_STREAM_EVENTS, ...streamEventNames, ...Object.keys(derivedEventTypes)];

/** The types an outbox event is, for a webhook subscribed to `subscribed`: its own name and the derived types it matches. */
export function webhookTypesOf(event: { name: string; payload: Record<string, unknown> }, subscribed: readonly string[]): string[] {
  const types: string[] = [];
  if (
    subscribed.includes(event.name) ||
    (subscribed.includes(ALL_STREAM_EVENTS) && (streamEventNames as readonly string[]).includes(event.name))
  ) {
    types.push(event.name);
  }
  for (const [type, rule] of Object.entries(derivedEventTypes)) {
    if (rule.from !== event.name || !subscribed.includes(type)) continue;
    if (Object.entries(rule.when).every(([field, values]) => values.includes(String(event.payload[field])))) types.push(type);
  }
  return types;
}
