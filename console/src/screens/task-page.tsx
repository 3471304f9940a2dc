import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso';
import { taskPriorities, taskStatuses } from '../../../core/tasks/statuses';
import { invalidate, useQuery, type Topic } from '../queries';
import {
  archiveTask,
  changeDependencies,
  deleteTask,
  linkSubtask,
  loadRuns,
  loadSessions,
  loadTask,
  retryTask,
  updateTask,
  type TaskDetail,
} from '../task-data';
import { loadVersions } from '../history-data';
import { statusLabel } from '../task-words';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { sameValue, valueText, VersionHistory, type FieldView } from '../parts/version-history';

/**
 * One task: every field editable, its dependencies and subtasks, its claim, runs and sessions, and its
 * history as field-by-field diffs with "Revert to this version" (previewed first).
 */
const diffFields = [
  'title',
  'description',
  'status',
  'priority',
  'owner',
  'start_date',
  'due_date',
  'estimated_effort',
  'actual_effort',
  'labels',
  'dependency_ids',
  'parent_task_id',
] as const;
const fieldNames: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  status: 'Status',
  priority: 'Priority',
  owner: 'Owner',
  start_date: 'Start date',
  due_date: 'Due date',
  estimated_effort: 'Estimated effort',
  actual_effort: 'Actual effort',
  labels: 'Labels',
  dependency_ids: 'Dependencies',
  parent_task_id: 'Parent task',
};

const dateOnly = (value: string | null) => (value ? value.slice(0, 10) : '');

/** The page's first read (also started early: app.tsx's screenRead). */
export const taskRead = (id: string) => ({ key: `task:${id}`, topics: ['tasks'] as Topic[], load: () => loadTask(id) });

export function TaskPage({ id = '' }: { path: string; id?: string }) {
  const { route } = useLocation();
  const read = taskRead(id);
  const task = useQuery(read.key, read.topics, read.load);
  const versions = useQuery(`task-versions:${id}`, ['tasks'], () => loadVersions('task', id));
  const runs = useQuery(`task-runs:${id}`, ['runs'], () => loadRuns(id));
  const sessions = useQuery(`task-sessions:${id}`, ['runs'], () => loadSessions(id));
  const problem = useSignal<string | undefined>(undefined);
  const notice = useSignal<string | undefined>(undefined);
  const t = task.data.value;

  const act = async (work: () => Promise<unknown>, done?: string) => {
    problem.value = undefined;
    notice.value = undefined;
    try {
      await work();
      notice.value = done;
      task.refetch();
      versions.refetch();
      invalidate(['tasks']);
    } catch (err) {
      problem.value = (err as Error).message;
    }
  };

  if (task.error.value && !t)
    return (
      <section aria-labelledby="screen-title" class="screen">
        <h1 id="screen-title">Task</h1>
        <p role="alert" class="problem">
          The task could not be read: {task.error.value}
        </p>
      </section>
    );
  if (!t)
    return (
      <section aria-labelledby="screen-title" class="screen">
        <h1 id="screen-title">Task</h1>
        <p class="muted">Reading the task…</p>
      </section>
    );

  return (
    <section aria-labelledby="screen-title" class="screen task-page">
      <h1 id="screen-title">{t.title}</h1>
      <p class="muted">
        {statusLabel(t.status)} · {t.priority} priority{t.archived_at ? ' · archived' : ''}
        {t.deleted_at ? ' · deleted' : ''}
      </p>
      <Problem text={problem.value} />
      {notice.value ? (
        <p role="status" class="notice">
          {notice.value}
        </p>
      ) : null}
      <TaskForm key={t.updated_at} task={t} onSave={(body) => act(() => updateTask(id, body), 'Saved.')} />

      <section aria-labelledby="deps-title" class="card stack">
        <h2 id="deps-title">Dependencies</h2>
        {t.dependencies.length === 0 ? <p class="muted">None.</p> : null}
        <ul class="plain-list">
          {t.dependencies.map((d) => (
            <li key={d.id}>
              <a href={`/tasks/${d.id}`}>{d.title}</a> <span class="muted">({statusLabel(d.status)})</span>{' '}
              <button
                type="button"
                aria-label={`Remove dependency ${d.title}`}
                onClick={() => act(() => changeDependencies(id, { remove: [d.id] }), 'Dependency removed.')}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        <IdForm
          label="Add dependency (task id)"
          button="Add dependency"
          onSubmit={(other) => act(() => changeDependencies(id, { add: [other] }), 'Dependency added.')}
        />
      </section>

      <section aria-labelledby="subtasks-title" class="card stack">
        <h2 id="subtasks-title">Subtasks</h2>
        {t.subtasks.length === 0 ? <p class="muted">None.</p> : null}
        <ul class="plain-list">
          {t.subtasks.map((s) => (
            <li key={s.id}>
              <a href={`/tasks/${s.id}`}>{s.title}</a> <span class="muted">({statusLabel(s.status)})</span>{' '}
              <button
                type="button"
                aria-label={`Remove subtask ${s.title}`}
                onClick={() => act(() => updateTask(s.id, { parent_task_id: null }), 'Subtask removed.')}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        <IdForm
          label="Add subtask (task id)"
          button="Add subtask"
          onSubmit={(other) => act(() => linkSubtask(id, other), 'Subtask added.')}
        />
      </section>

      <section aria-labelledby="claim-title" class="card stack">
        <h2 id="claim-title">Claim</h2>
        {t.locked_by ? (
          <p>
            Claimed by {t.locked_by} since <LocalTime iso={t.locked_at ?? t.updated_at} />
            {t.lease_expires_at ? (
              <>
                ; the lease ends <LocalTime iso={t.lease_expires_at} />
              </>
            ) : (
              '; no lease'
            )}
            .
          </p>
        ) : (
          <p class="muted">Not claimed.</p>
        )}
      </section>

      <section aria-labelledby="runs-title" class="card stack">
        <h2 id="runs-title">Runs</h2>
        {(() => {
          const list =
            (runs.data.value as { runs?: { id: string; status: string; workflow_type: string; created_at: string }[] } | undefined)?.runs ??
            [];
          return list.length === 0 ? (
            <p class="muted">No runs.</p>
          ) : (
            <ul class="plain-list">
              {list.map((r) => (
                <li key={r.id}>
                  <a href={`/runs/${r.id}`}>{r.id.slice(0, 8)}</a> {r.workflow_type} · {r.status} · <LocalTime iso={r.created_at} />
                </li>
              ))}
            </ul>
          );
        })()}
        <h3>Sessions</h3>
        {(() => {
          const list =
            (
              sessions.data.value as
                { sessions?: { sessionKey?: string | null; sessionId?: string | null; runId?: string; liveness?: string }[] } | undefined
            )?.sessions ?? [];
          return list.length === 0 ? (
            <p class="muted">No linked sessions.</p>
          ) : (
            <ul class="plain-list">
              {list.map((s, i) => (
                <li key={s.runId ?? i}>
                  {s.sessionId ? (
                    <a href={`/sessions/${encodeURIComponent(s.sessionId)}`}>{s.sessionKey ?? s.sessionId}</a>
                  ) : (
                    (s.sessionKey ?? 'session')
                  )}{' '}
                  {s.liveness ? `· ${s.liveness}` : ''}
                </li>
              ))}
            </ul>
          );
        })()}
      </section>

      <section aria-labelledby="lifecycle-title" class="card stack">
        <h2 id="lifecycle-title">Archive, delete, retry</h2>
        <div class="actions">
          <button type="button" onClick={() => act(() => retryTask(id), 'Retried: the task is ready again.')}>
            Retry
          </button>
          <button type="button" onClick={() => act(() => archiveTask(id), 'Archived.')} disabled={Boolean(t.archived_at)}>
            Archive
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              if (!confirm(`Delete “${t.title}”? It can be restored through the API.`)) return;
              void act(async () => {
                await deleteTask(id);
                route('/board');
              }, 'Deleted.');
            }}
          >
            Delete
          </button>
        </div>
      </section>

      <VersionHistory
        versions={versions.data.value ?? []}
        view={taskFieldView(knownTitles(t))}
        headingId="history-title"
        title="History"
        onReverted={() => act(async () => undefined, 'Reverted to the chosen version.')}
      />
    </section>
  );
}

function TaskForm({ task, onSave }: { task: TaskDetail; onSave(body: Parameters<typeof updateTask>[1]): void }) {
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(data.get(name) ?? '');
    const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
    const numberOrNull = (value: string) => (value.trim() === '' ? null : Number(value));
    const next = {
      title: text('title').trim(),
      description: text('description'),
      status: text('status') as TaskDetail['status'],
      priority: text('priority') as TaskDetail['priority'],
      owner: orNull(text('owner')),
      start_date: orNull(text('start_date')),
      due_date: orNull(text('due_date')),
      estimated_effort: numberOrNull(text('estimated_effort')),
      actual_effort: numberOrNull(text('actual_effort')),
      labels: text('labels')
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    };
    const before: Record<string, unknown> = {
      ...task,
      start_date: dateOnly(task.start_date) || null,
      due_date: dateOnly(task.due_date) || null,
    };
    const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => !sameValue(before[k], v)));
    if (Object.keys(changed).length > 0) onSave(changed);
  };
  return (
    <form class="card task-form" aria-labelledby="fields-title" onSubmit={submit}>
      <h2 id="fields-title">Fields</h2>
      <label class="field">
        <span>Title</span>
        <input name="title" required defaultValue={task.title} />
      </label>
      <label class="field">
        <span>Description</span>
        <textarea name="description" rows={4} defaultValue={task.description} />
      </label>
      <div class="field-row">
        <div class="field">
          <label for="task-status">Status</label>
          <select id="task-status" name="status" value={task.status}>
            {taskStatuses.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="task-priority">Priority</label>
          <select id="task-priority" name="priority" value={task.priority}>
            {taskPriorities.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <label class="field">
          <span>Owner</span>
          <input name="owner" defaultValue={task.owner ?? ''} />
        </label>
      </div>
      <div class="field-row">
        <label class="field">
          <span>Start date</span>
          <input name="start_date" type="date" defaultValue={dateOnly(task.start_date)} />
        </label>
        <label class="field">
          <span>Due date</span>
          <input name="due_date" type="date" defaultValue={dateOnly(task.due_date)} />
        </label>
        <label class="field">
          <span>Estimated effort</span>
          <input name="estimated_effort" type="number" step="any" min="0" defaultValue={task.estimated_effort?.toString() ?? ''} />
        </label>
        <label class="field">
          <span>Actual effort</span>
          <input name="actual_effort" type="number" step="any" min="0" defaultValue={task.actual_effort?.toString() ?? ''} />
        </label>
      </div>
      <label class="field">
        <span>Labels (comma-separated)</span>
        <input name="labels" defaultValue={task.labels.join(', ')} />
      </label>
      <div class="actions">
        <button type="submit" class="primary">
          Save
        </button>
      </div>
    </form>
  );
}

function IdForm({ label, button, onSubmit }: { label: string; button: string; onSubmit(id: string): void }) {
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget as HTMLFormElement;
        const value = String(new FormData(form).get('id') ?? '').trim();
        if (value) onSubmit(value);
        form.reset();
      }}
    >
      <label class="field inline">
        <span>{label}</span>
        <input name="id" required />
      </label>
      <button type="submit">{button}</button>
    </form>
  );
}

/** Titles of the tasks this page already read (dependencies, subtasks), so History names them without asking again. */
function knownTitles(t: TaskDetail): ReadonlyMap<string, string> {
  return new Map([...t.dependencies, ...t.subtasks].map((d) => [d.id, d.title]));
}

/** The diff's fields whose values are instants (ISO text in a version's state). */
const dateFields: ReadonlySet<string> = new Set(['start_date', 'due_date']);

/** A field's value in a diff: dates in the reader's time zone; the tasks that dependency_ids and parent_task_id name, by title, linked to their page. */
function FieldValue({ field, value, known }: { field: (typeof diffFields)[number]; value: unknown; known: ReadonlyMap<string, string> }) {
  if (dateFields.has(field) && typeof value === 'string' && value) return <LocalTime iso={value} />;
  if (field !== 'dependency_ids' && field !== 'parent_task_id') return <>{valueText(value)}</>;
  const ids = (Array.isArray(value) ? value : value ? [value] : []).map(String);
  if (ids.length === 0) return <>—</>;
  return (
    <>
      {ids.map((taskId, i) => (
        <span key={taskId}>
          {i > 0 ? ', ' : null}
          <TaskRef id={taskId} known={known.get(taskId)} />
        </span>
      ))}
    </>
  );
}

/** A task named by its title (read once when this page does not know it), its id in the link and its tooltip. */
function TaskRef({ id, known }: { id: string; known: string | undefined }) {
  return known !== undefined ? (
    <a href={`/tasks/${id}`} title={id}>
      {known}
    </a>
  ) : (
    <FetchedTaskRef id={id} />
  );
}

function FetchedTaskRef({ id }: { id: string }) {
  // titles seldom change and a stale one still links to the right task: no refetch on events
  const found = useQuery(`task-title:${id}`, [], () => loadTask(id).then((t) => t.title));
  return (
    <a href={`/tasks/${id}`} title={id}>
      {found.data.value ?? (found.error.value ? `task ${id}` : id)}
    </a>
  );
}

/** The task fields History compares, named as the form names them, with dates and task references as FieldValue shows them. */
function taskFieldView(known: ReadonlyMap<string, string>): FieldView {
  return {
    fields: diffFields,
    label: (f) => fieldNames[f] ?? f,
    value: (f, v) => <FieldValue field={f as (typeof diffFields)[number]} value={v} known={known} />,
  };
}
