import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useQuery } from '../queries';
import { loadRunsView, runTopics, runsViewKey, type RunFilters, type RunsView } from '../runs-data';
import { LocalTime, localTimeText } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { RunActionButtons, ageText, costText } from '../parts/run-actions';

/** The run page travels in this screen's chunk (app.tsx loads both from here). */
export { RunPage } from './run-page';

/**
 * The Runs screen: the queue and the dispatcher, then the runs as a table filtered by the URL
 * (`/runs?status=&type=&agent=&task=`), each row with the buttons the API allows on it. Live: the
 * stream's run and approval changes refetch the one read (GET /api/views/runs).
 */
export function RunsScreen(_props: { path: string }) {
  const { query, path, route } = useLocation();
  const filters: RunFilters = { status: query.status ?? '', type: query.type ?? '', agent: query.agent ?? '', task: query.task ?? '' };
  const view = useQuery(runsViewKey(filters), runTopics, () => loadRunsView(filters));
  const notice = useSignal<string | undefined>(undefined);
  const problem = useSignal<string | undefined>(undefined);
  // while other filters' first answer travels, the last one stays on screen (not a flash of "Reading")
  const last = useRef<RunsView | undefined>(undefined);
  if (view.data.value) last.current = view.data.value;
  const data = view.data.value ?? (view.error.value ? undefined : last.current);

  const applyFilters = (form: HTMLFormElement) => {
    const values = new FormData(form);
    const next = new URLSearchParams();
    for (const name of ['status', 'type', 'agent', 'task'] as const) {
      const value = String(values.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    const qs = next.toString();
    route(qs ? `${path}?${qs}` : path, true);
  };

  return (
    <section aria-labelledby="screen-title" class="screen runs-screen">
      <h1 id="screen-title">Runs</h1>
      <Problem text={view.error.value && `The runs could not be read: ${view.error.value}`} />
      {data ? <DispatcherPanel dispatcher={data.dispatcher} /> : null}
      <form
        class="run-filters"
        role="search"
        aria-label="Filter runs"
        onSubmit={(e) => {
          e.preventDefault();
          applyFilters(e.currentTarget as HTMLFormElement);
        }}
      >
        <div class="field">
          <label for="runs-status">Status</label>
          <select
            id="runs-status"
            name="status"
            value={filters.status}
            onChange={(e) => applyFilters((e.currentTarget as HTMLSelectElement).form!)}
          >
            <option value="">Any</option>
            {(data?.statuses ?? (filters.status ? [filters.status] : [])).map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="runs-type">Workflow type</label>
          <select
            id="runs-type"
            name="type"
            value={filters.type}
            onChange={(e) => applyFilters((e.currentTarget as HTMLSelectElement).form!)}
          >
            <option value="">Any</option>
            {[...new Set([...(data?.workflow_types ?? []), ...(filters.type ? [filters.type] : [])])].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <label class="field">
          <span>Agent</span>
          {/* keyed by the URL's value: a cleared filter empties the field */}
          <input key={filters.agent} name="agent" defaultValue={filters.agent} />
        </label>
        <label class="field">
          <span>Task id</span>
          <input key={filters.task} name="task" defaultValue={filters.task} />
        </label>
        <div class="actions">
          <button type="submit">Filter</button>
          {filters.status || filters.type || filters.agent || filters.task ? (
            <button type="button" class="quiet" onClick={() => route(path, true)}>
              Clear filters
            </button>
          ) : null}
        </div>
      </form>
      {notice.value ? (
        <p role="status" class="notice">
          {notice.value}
        </p>
      ) : null}
      <Problem text={problem.value} />
      {!data ? (
        view.error.value ? null : (
          <p class="muted">Reading the runs…</p>
        )
      ) : data.runs.length === 0 ? (
        <p class="empty-state">No runs match.</p>
      ) : (
        <>
          <table class="runs-table">
            <caption class="visually-hidden">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Workflow type</th>
                <th scope="col">Task</th>
                <th scope="col">Agent</th>
                <th scope="col">Attempt</th>
                <th scope="col">Age</th>
                <th scope="col">Cost so far</th>
                <th scope="col">Last heartbeat</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.runs.map((r) => (
                <tr key={r.id}>
                  <th scope="row" data-label="Run">
                    <a href={`/runs/${r.id}`} title={r.id}>
                      {r.id.slice(0, 8)}
                    </a>
                  </th>
                  <td data-label="Status">
                    <span class={`run-status status-${r.status}`}>{r.status.replace(/_/g, ' ')}</span>
                  </td>
                  <td data-label="Workflow type">{r.workflow_type}</td>
                  <td data-label="Task">{r.task_id ? <a href={`/tasks/${r.task_id}`}>{r.task_title ?? r.task_id.slice(0, 8)}</a> : '—'}</td>
                  <td data-label="Agent">{r.agent_id ?? '—'}</td>
                  <td data-label="Attempt">
                    {r.retry_count + 1}
                    {r.dispatch_attempts > 1 ? ` (${r.dispatch_attempts} dispatches)` : ''}
                  </td>
                  <td data-label="Age">
                    <time dateTime={r.created_at} title={localTimeText(r.created_at)}>
                      {ageText(r.created_at)}
                    </time>
                  </td>
                  <td data-label="Cost so far">{costText(r)}</td>
                  <td data-label="Last heartbeat">{r.heartbeat_at ? <LocalTime iso={r.heartbeat_at} /> : '—'}</td>
                  <td data-label="Actions">
                    <RunActionButtons
                      run={r}
                      onDone={(message) => {
                        notice.value = message;
                        view.refetch();
                      }}
                      onProblem={(message) => (problem.value = message)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">
            {data.truncated
              ? `The newest ${data.runs.length} of ${data.total} runs.`
              : `${data.total} ${data.total === 1 ? 'run' : 'runs'}.`}
          </p>
        </>
      )}
    </section>
  );
}

const capNames: Record<RunsView['dispatcher']['caps'][number]['cap'], string> = {
  workflowType: 'Workflow type',
  agent: 'Agent',
  fleet: 'Fleet (DISPATCH_MAX_IN_FLIGHT)',
};

/** The queue and the dispatcher above the table: depth, runs in flight against the fleet cap, the last tick, what holds runs back and why. */
function DispatcherPanel({ dispatcher: d }: { dispatcher: RunsView['dispatcher'] }) {
  const tick = d.last_tick;
  return (
    <section aria-labelledby="dispatcher-title" class="card stack dispatcher-panel">
      <h2 id="dispatcher-title">Queue and dispatcher</h2>
      <dl class="facts">
        <div>
          <dt>Queue depth</dt>
          <dd>{d.queue_depth}</dd>
        </div>
        <div>
          <dt>In flight</dt>
          <dd>{d.max_in_flight === null ? `${d.in_flight} (no fleet cap)` : `${d.in_flight} of ${d.max_in_flight}`}</dd>
        </div>
        <div>
          <dt>Last tick</dt>
          <dd>{tick ? <LocalTime iso={tick.finished_at} /> : 'none yet'}</dd>
        </div>
        {tick ? (
          <>
            <div>
              <dt>Dispatched</dt>
              <dd>
                {tick.dispatched}
                {tick.unrouted ? `, ${tick.unrouted} without a route` : ''}
              </dd>
            </div>
            <div>
              <dt>Held</dt>
              <dd>
                {tick.held_by_budget} by budgets, {tick.held_by_pause} by paused agents
              </dd>
            </div>
            <div>
              <dt>Capped</dt>
              <dd>
                {tick.capped.workflowType} by workflow type, {tick.capped.agent} by agent, {tick.capped.fleet} by the fleet cap
              </dd>
            </div>
          </>
        ) : null}
      </dl>
      {d.caps.length > 0 ? (
        <ul class="plain-list" aria-label="Concurrency caps">
          {d.caps.map((c) => (
            <li key={`${c.cap}:${c.name}`}>
              {capNames[c.cap]}
              {c.cap === 'fleet' ? '' : ` ${c.name}`}: {c.live} of {c.limit} live
              {c.live >= c.limit ? <strong> — full: its queued runs wait</strong> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {d.paused_agents.length > 0 ? (
        <ul class="plain-list" aria-label="Paused agents">
          {d.paused_agents.map((p) => (
            <li key={p.agent_id}>
              Dispatch to {p.agent_id} paused until <LocalTime iso={p.until} />
              {p.reason ? ` (${p.reason})` : ''}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
