import { useSignal } from '@preact/signals';
import { capUnit, inboxActions } from '../inbox-actions';
import { INBOX_KEY, inboxTopics, loadInbox, type InboxItem as Item } from '../inbox-data';
import { invalidate, useQuery } from '../queries';
import { Problem } from '../parts/problem';

/** The home screen: what needs the operator, most severe first, each with its actions in place. */
export function InboxScreen(_props: { path: string }) {
  const inbox = useQuery(INBOX_KEY, inboxTopics, loadInbox);
  // items acted on here leave at once; the refetch the stream triggers confirms it
  const done = useSignal<ReadonlySet<string>>(new Set());
  const data = inbox.data.value;
  const items = data?.items.filter((i) => !done.value.has(i.id)) ?? [];
  // an action that leaves the item's condition in place (a resumed budget still over its cap, now
  // warned) keeps it: the item, same id, comes back from the refetch in its new state
  const acted = (id: string, leaves: boolean) => {
    if (leaves) done.value = new Set([...done.value, id]);
    invalidate(inboxTopics);
  };
  return (
    <section aria-labelledby="screen-title" class="screen inbox">
      <h1 id="screen-title">Inbox</h1>
      <Problem text={inbox.error.value && `The Inbox could not be read: ${inbox.error.value}`} />
      {!data ? (
        <p class="muted">Reading what waits…</p>
      ) : items.length === 0 ? (
        <p class="empty-state">
          Nothing needs you. {data.fleet.live_runs} {data.fleet.live_runs === 1 ? 'run' : 'runs'} live, {data.fleet.agents_online}{' '}
          {data.fleet.agents_online === 1 ? 'agent' : 'agents'} online.
        </p>
      ) : (
        <ul class="inbox-list" aria-label="Waiting for you">
          {items.map((item) => (
            <InboxItem key={item.id} item={item} onActed={(leaves) => acted(item.id, leaves)} />
          ))}
        </ul>
      )}
    </section>
  );
}

const fieldNames: readonly [string, string][] = [
  ['action', 'Action'],
  ['executes', 'Approving executes'],
  ['task_title', 'Task'],
  ['run_id', 'Run'],
  ['agent_id', 'Agent'],
  ['cost_so_far_usd', 'Cost so far'],
  ['status', 'Status'],
  ['error', 'Error'],
  ['reason', 'Reason'],
  ['spent_usd', 'Spent'],
  ['cap_usd', 'Cap'],
  ['spent_tokens', 'Tokens spent'],
  ['cap_tokens', 'Token cap'],
  ['paused_until', 'Paused until'],
  ['last_heartbeat_at', 'Last heartbeat'],
  ['lease_expired_at', 'Lease expired'],
  ['summary', 'Finding'],
  ['url', 'Destination'],
  ['last_error', 'Last error'],
];

const money = (value: unknown) => (typeof value === 'number' ? `$${value.toFixed(2)}` : String(value));

function shown(field: string, value: unknown): string {
  if (field.endsWith('_usd')) return money(value);
  if (field.endsWith('_at') || field === 'paused_until') return new Date(String(value)).toLocaleString();
  return String(value);
}

function InboxItem({ item, onActed }: { item: Item; onActed(leaves: boolean): void }) {
  const busy = useSignal(false);
  const problem = useSignal<string | undefined>(undefined);
  const note = useSignal('');
  const editingCap = useSignal(false);
  const repairPreview = useSignal<string | undefined>(undefined);
  const titleId = `inbox-${item.id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;

  const act = async (work: () => Promise<unknown>, leaves = true) => {
    busy.value = true;
    problem.value = undefined;
    try {
      await work();
      onActed(leaves);
    } catch (err) {
      problem.value = (err as Error).message;
    } finally {
      busy.value = false;
    }
  };

  const has = (action: Item['actions'][number]) => item.actions.includes(action);
  // every kind's fields, looked up by name for the facts list (each kind has its own)
  const values: Readonly<Record<string, unknown>> = item;
  return (
    <li class={`inbox-item severity-${item.severity}`} aria-labelledby={titleId} data-list-item tabIndex={-1}>
      <div class="inbox-head">
        <span class="severity">{item.severity}</span>
        <h2 id={titleId}>{item.title}</h2>
      </div>
      {item.detail ? <p>{item.detail}</p> : null}
      <dl class="facts">
        {fieldNames
          .filter(
            ([field]) =>
              values[field] !== null &&
              values[field] !== undefined &&
              values[field] !== '' &&
              !(field === 'spent_tokens' && values.cap_tokens === null),
          )
          .map(([field, name]) => (
            <div key={field}>
              <dt>{name}</dt>
              <dd>
                {field === 'task_title' && typeof values.task_id === 'string' ? (
                  <a href={`/tasks/${values.task_id}`}>{String(values.task_title)}</a>
                ) : (
                  shown(field, values[field])
                )}
              </dd>
            </div>
          ))}
      </dl>
      {item.kind === 'approval' ? (
        <label class="field inline">
          <span>Note (optional)</span>
          <input type="text" value={note.value} onInput={(e) => (note.value = (e.currentTarget as HTMLInputElement).value)} />
        </label>
      ) : null}
      {editingCap.value && item.kind === 'budget' ? (
        <form
          class="inline-form"
          aria-label="Raise cap"
          onSubmit={(e) => {
            e.preventDefault();
            const cap = Number(new FormData(e.currentTarget as HTMLFormElement).get('cap'));
            void act(() => inboxActions.raise_cap(item, cap));
          }}
        >
          <label class="field inline">
            <span>{capUnit(item) === 'tokens' ? 'New cap (tokens)' : 'New cap (USD)'}</span>
            <input
              name="cap"
              type="number"
              min="0"
              step={capUnit(item) === 'tokens' ? '1' : '0.01'}
              required
              defaultValue={String((capUnit(item) === 'tokens' ? item.cap_tokens : item.cap_usd) ?? '')}
            />
          </label>
          <button type="submit" class="primary" disabled={busy.value}>
            Save cap
          </button>
          <button type="button" onClick={() => (editingCap.value = false)}>
            Close
          </button>
        </form>
      ) : null}
      {repairPreview.value !== undefined && (item.kind === 'doctor_finding' || item.kind === 'expired_claim') ? (
        <div class="inline-form" role="group" aria-label="Repair preview">
          <p>{repairPreview.value}</p>
          <button type="button" class="primary" disabled={busy.value} onClick={() => void act(() => inboxActions.repair(item))}>
            Repair now
          </button>
          <button type="button" onClick={() => (repairPreview.value = undefined)}>
            Close
          </button>
        </div>
      ) : null}
      <div class="actions">
        {item.kind === 'approval' && has('approve') ? (
          <button
            type="button"
            class="primary"
            disabled={busy.value}
            onClick={() => void act(() => inboxActions.approve(item, note.value.trim() || undefined))}
          >
            Approve
          </button>
        ) : null}
        {item.kind === 'approval' && has('reject') ? (
          <button
            type="button"
            class="danger"
            disabled={busy.value}
            onClick={() => void act(() => inboxActions.reject(item, note.value.trim() || undefined))}
          >
            Reject
          </button>
        ) : null}
        {item.kind === 'failed_run' && has('retry') ? (
          <button type="button" class="primary" disabled={busy.value} onClick={() => void act(() => inboxActions.retry(item))}>
            Retry
          </button>
        ) : null}
        {item.kind === 'stuck_run' && has('cancel') ? (
          <button type="button" class="danger" disabled={busy.value} onClick={() => void act(() => inboxActions.cancel(item))}>
            Cancel
          </button>
        ) : null}
        {item.kind === 'budget' && has('raise_cap') && !editingCap.value ? (
          <button type="button" disabled={busy.value} onClick={() => (editingCap.value = true)}>
            Raise cap
          </button>
        ) : null}
        {item.kind === 'budget' && has('resume') ? (
          <button type="button" disabled={busy.value} onClick={() => void act(() => inboxActions.resume(item), false)}>
            Resume
          </button>
        ) : null}
        {item.kind === 'agent_paused' && has('resume_dispatch') ? (
          <button type="button" class="primary" disabled={busy.value} onClick={() => void act(() => inboxActions.resume_dispatch(item))}>
            Resume dispatch
          </button>
        ) : null}
        {(item.kind === 'doctor_finding' || item.kind === 'expired_claim') && has('repair') && repairPreview.value === undefined ? (
          <button
            type="button"
            disabled={busy.value}
            onClick={async () => {
              busy.value = true;
              problem.value = undefined;
              try {
                const preview = await inboxActions.repairPreview(item);
                repairPreview.value = `The dry run would repair ${preview.total}: ${preview.repaired.map((r) => `${r.count} × ${r.kind}`).join(', ') || 'nothing'}.`;
              } catch (err) {
                problem.value = (err as Error).message;
              } finally {
                busy.value = false;
              }
            }}
          >
            Repair
          </button>
        ) : null}
      </div>
      <Problem text={problem.value} />
    </li>
  );
}
