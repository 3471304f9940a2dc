import { useSignal } from '@preact/signals';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { boardColumns, boardMovesFrom } from '../../../core/tasks/statuses';
import {
  createTask,
  loadBoard,
  loadBoardAsOf,
  loadProjects,
  moveTask,
  type Board,
  type BoardAsOf,
  type BoardStuck,
  type BoardTask,
} from '../board-data';
import { invalidate, useQuery, type Topic } from '../queries';
import { statusLabel } from '../task-words';
import { Problem } from '../parts/problem';

/**
 * A project's board: columns in spec 01's order, each its own virtualized scroller; cards moved by
 * drag and drop or by their "Move to" menu; filters and the time-travel instant in the URL.
 */
type Filters = { q: string; owner: string; priority: string; label: string };

function matches(task: BoardTask, f: Filters): boolean {
  if (f.q && !task.title.toLowerCase().includes(f.q.toLowerCase())) return false;
  if (f.owner && (task.owner ?? '') !== f.owner) return false;
  if (f.priority && task.priority !== f.priority) return false;
  if (f.label && !task.labels.includes(f.label)) return false;
  return true;
}

const filterNames = ['q', 'owner', 'priority', 'label'] as const;

/**
 * The board's read for the URL's project and time-travel instant (also started early: app.tsx's
 * screenRead). The live board opens on its first screenful of each column, with every column's
 * count, painted while the whole board travels; a board opened with filters waits for the whole
 * (its counts are of the cards that match), as does the board as of a moment.
 */
export function boardRead(query: Readonly<Record<string, string | undefined>>) {
  const projectId = query.project || undefined;
  const at = query.at || undefined;
  if (at)
    return {
      key: `board-as-of:${projectId ?? ''}:${at}`,
      topics: [] as Topic[],
      load: (): Promise<BoardAsOf | Board> => loadBoardAsOf(projectId, at),
      first: undefined,
    };
  const filtered = filterNames.some((name) => query[name]);
  return {
    key: `board:${projectId ?? ''}`,
    topics: ['tasks', 'projects'] as Topic[],
    load: (): Promise<BoardAsOf | Board> => loadBoard(projectId),
    first: filtered ? undefined : (): Promise<BoardAsOf | Board> => loadBoard(projectId, firstScreenfulPerColumn()),
  };
}

/** Only an answer of the first screenful carries `counts` (GET /api/views/board with limit_per_column). */
const firstScreenfulOf = (data: BoardAsOf | Board | undefined) =>
  data && 'counts' in data && data.counts ? { counts: data.counts, dependencies: data.dependency_statuses ?? {} } : undefined;

export function BoardScreen(_props: { path: string }) {
  const { query, path, route } = useLocation();
  const projectId = query.project || undefined;
  const at = query.at || undefined;
  const filters: Filters = { q: query.q ?? '', owner: query.owner ?? '', priority: query.priority ?? '', label: query.label ?? '' };
  const setQuery = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, ...changes })) if (v) next.set(k, v);
    const qs = next.toString();
    route(qs ? `${path}?${qs}` : path, true);
  };

  const projects = useQuery('projects', ['projects'], loadProjects);
  const read = boardRead(query);
  const board = useQuery(read.key, read.topics, read.load, { first: read.first });
  // moves made here show at once; the refetch the stream triggers replaces them
  const moved = useSignal<ReadonlyMap<string, string>>(new Map());
  const problem = useSignal<string | undefined>(undefined);
  const data = board.data.value;
  const currentProject = data?.project as { id?: string; name?: string } | undefined;

  const move = async (task: BoardTask, status: string) => {
    if (task.status === status) return;
    problem.value = undefined;
    moved.value = new Map([...moved.value, [task.id, status]]);
    try {
      await moveTask(task.id, status);
    } catch (err) {
      problem.value = `“${task.title}” was not moved to ${statusLabel(status)}: ${(err as Error).message}`;
    } finally {
      const next = new Map(moved.value);
      next.delete(task.id);
      moved.value = next;
      board.refetch();
    }
  };
  const add = async (status: string, title: string) => {
    const project = currentProject?.id;
    if (!project) return;
    problem.value = undefined;
    try {
      await createTask(project, title, status);
      invalidate(['tasks']);
    } catch (err) {
      problem.value = `The task was not added: ${(err as Error).message}`;
    }
  };

  const columns = useMemo(() => {
    const all: BoardTask[] = data ? Object.values(data.columns).flat() : [];
    const byId = new Map(all.map((t) => [t.id, t]));
    const lists = new Map<string, BoardTask[]>(boardColumns.map((c) => [c, []]));
    for (const task of all) {
      if (!matches(task, filters)) continue;
      const status = moved.value.get(task.id) ?? task.status;
      lists.get(status)?.push(task);
    }
    // the first screenful: the server's count of each column, with the moves made here since
    const first = firstScreenfulOf(data);
    const unfiltered = !filterNames.some((name) => filters[name]);
    const counts = new Map(
      boardColumns.map((c) => [
        c,
        first && unfiltered ? (first.counts[c] ?? 0) + lists.get(c)!.length - (data?.columns[c]?.length ?? 0) : lists.get(c)!.length,
      ]),
    );
    // a dependency the first screenful leaves out: its status as the server gave it
    const statusOf = (id: string) => byId.get(id)?.status ?? first?.dependencies[id];
    return { lists, byId, counts, statusOf };
  }, [data, moved.value, filters.q, filters.owner, filters.priority, filters.label]);

  const stuck: BoardStuck = (data && 'stuck' in data ? data.stuck : undefined) ?? {};
  const owners = useMemo(
    () => [...new Set([...columns.byId.values()].map((t) => t.owner).filter((o): o is string => Boolean(o)))].sort(),
    [columns],
  );
  const labels = useMemo(() => [...new Set([...columns.byId.values()].flatMap((t) => t.labels))].sort(), [columns]);
  const readOnly = Boolean(at);

  return (
    <section aria-labelledby="screen-title" class="screen board-screen">
      <div class="board-head">
        <h1 id="screen-title">Board</h1>
        <div class="field inline">
          <label for="board-project">Project</label>
          <select
            id="board-project"
            value={currentProject?.id ?? projectId ?? ''}
            onChange={(e) => setQuery({ project: (e.currentTarget as HTMLSelectElement).value })}
          >
            {(projects.data.value ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="board-filters" role="search" aria-label="Filter the board">
        <input
          type="search"
          aria-label="Filter by title"
          placeholder="Filter by title"
          value={filters.q}
          onInput={(e) => setQuery({ q: (e.currentTarget as HTMLInputElement).value })}
        />
        <div class="field inline">
          <label for="board-owner">Owner</label>
          <select
            id="board-owner"
            value={filters.owner}
            onChange={(e) => setQuery({ owner: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Anyone</option>
            {[...new Set([...owners, ...(filters.owner ? [filters.owner] : [])])].map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for="board-priority">Priority</label>
          <select
            id="board-priority"
            value={filters.priority}
            onChange={(e) => setQuery({ priority: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            {['critical', 'high', 'medium', 'low'].map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for="board-label">Label</label>
          <select
            id="board-label"
            value={filters.label}
            onChange={(e) => setQuery({ label: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            {[...new Set([...labels, ...(filters.label ? [filters.label] : [])])].map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </div>
        <TimeTravel at={at} onChange={(value) => setQuery({ at: value })} />
      </div>
      {readOnly && data ? (
        <div class="banner" role="note">
          <span>Board as of {new Date(at!).toLocaleString()}: read-only, as it stood then.</span>
          <button type="button" class="primary" onClick={() => setQuery({ at: undefined })}>
            Back to now
          </button>
        </div>
      ) : null}
      <Problem text={problem.value} />
      <Problem text={board.error.value && `The board could not be read: ${board.error.value}`} />
      {!data ? (
        <p class="muted">Reading the board…</p>
      ) : (
        <div class="board-columns">
          {boardColumns.map((status) => (
            <BoardColumn
              key={status}
              status={status}
              tasks={columns.lists.get(status) ?? []}
              count={columns.counts.get(status) ?? 0}
              byId={columns.byId}
              statusOf={columns.statusOf}
              stuck={stuck}
              readOnly={readOnly}
              onMove={move}
              onAdd={(title) => add(status, title)}
            />
          ))}
        </div>
      )}
    </section>
  );
}

function TimeTravel({ at, onChange }: { at: string | undefined; onChange(value: string | undefined): void }) {
  const local = (iso: string) => {
    const d = new Date(iso);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  };
  return (
    <form
      class="field inline"
      onSubmit={(e) => {
        e.preventDefault();
        const value = String(new FormData(e.currentTarget as HTMLFormElement).get('at') ?? '');
        onChange(value ? new Date(value).toISOString() : undefined);
      }}
    >
      <label class="field inline">
        <span>Board as of</span>
        <input name="at" type="datetime-local" step="1" defaultValue={at ? local(at) : ''} key={at ?? 'now'} />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

const CARD_ESTIMATE_PX = 112;
/** Cards rendered beyond the visible ones at each end of a column, once its first frame is drawn. */
const OVERSCAN = 6;

/** The greatest height of a column's scroller: styles.css gives `.column-scroll` `max-height: calc(100vh - 16rem)`. */
function columnHeightAtMost(): number {
  const rem = Number.parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return Math.max(CARD_ESTIMATE_PX, window.innerHeight - 16 * rem);
}

/** The least height of a card (a one-line title, one line of facts, its Move to button): the first screenful is counted in it. */
const CARD_LEAST_PX = 64;

/** How many cards of each column the first screenful holds: as many as the tallest column shows at the least card height, and the ones rendered beyond them. */
function firstScreenfulPerColumn(): number {
  return Math.ceil(columnHeightAtMost() / CARD_LEAST_PX) + OVERSCAN;
}

function BoardColumn(props: {
  status: string;
  tasks: BoardTask[];
  /** The column's number of cards: more than `tasks` holds while only the first screenful has arrived. */
  count: number;
  byId: ReadonlyMap<string, BoardTask>;
  statusOf(id: string): string | undefined;
  stuck: BoardStuck;
  readOnly: boolean;
  onMove(task: BoardTask, status: string): void;
  onAdd(title: string): Promise<void>;
}) {
  const { status, tasks } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [, rerender] = useState(0);
  const adding = useSignal(false);
  const dropping = useSignal(false);
  const virtualizer = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLElement>({
        count: 0,
        getScrollElement: () => scroller.current,
        estimateSize: () => CARD_ESTIMATE_PX,
        // the first cards render with the first render, before the scroller's size is observed: as
        // many as its greatest height shows, none beyond them until that frame is drawn
        initialRect: { width: 0, height: columnHeightAtMost() },
        overscan: 0,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        onChange: () => rerender((n) => n + 1),
      }),
    [],
  );
  const drawn = useSignal(false);
  virtualizer.setOptions({
    ...virtualizer.options,
    count: tasks.length,
    getItemKey: (i) => tasks[i]?.id ?? i,
    overscan: drawn.value ? OVERSCAN : 0,
  });
  useLayoutEffect(() => {
    const unmount = virtualizer._didMount();
    // the cards just past the visible ones (for smooth scrolling) once the first frame is on screen
    const frame = requestAnimationFrame(() => (drawn.value = true));
    return () => {
      cancelAnimationFrame(frame);
      unmount();
    };
  }, [virtualizer]);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
  });
  const headingId = `column-${status}`;
  const taskId = (event: DragEvent) => event.dataTransfer?.getData('text/x-task-id') ?? '';

  return (
    <section
      role="region"
      aria-labelledby={headingId}
      class={`board-column${props.count === 0 ? ' empty' : ''}${dropping.value ? ' dropping' : ''}`}
      onDragOver={(e) => {
        if (props.readOnly) return;
        e.preventDefault();
        dropping.value = true;
      }}
      onDragLeave={() => (dropping.value = false)}
      onDrop={(e) => {
        e.preventDefault();
        dropping.value = false;
        const task = props.byId.get(taskId(e));
        if (task && !props.readOnly) props.onMove(task, status);
      }}
    >
      <h2 id={headingId}>
        {statusLabel(status)} <span class="count">{props.count}</span>
      </h2>
      {!props.readOnly ? (
        adding.value ? (
          <form
            class="add-task"
            onSubmit={async (e) => {
              e.preventDefault();
              const form = e.currentTarget as HTMLFormElement;
              const title = String(new FormData(form).get('title') ?? '').trim();
              if (!title) return;
              await props.onAdd(title);
              adding.value = false;
            }}
          >
            <label class="field">
              <span>New task title</span>
              <input name="title" required autoFocus />
            </label>
            <div class="actions">
              <button type="submit" class="primary">
                Add
              </button>
              <button type="button" onClick={() => (adding.value = false)}>
                Close
              </button>
            </div>
          </form>
        ) : (
          <button type="button" class="add-button" onClick={() => (adding.value = true)}>
            Add task
          </button>
        )
      ) : null}
      <div class="column-scroll" ref={scroller}>
        <div class="column-inner" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {virtualizer.getVirtualItems().map((item) => {
            const task = tasks[item.index]!;
            return (
              <div
                key={task.id}
                class="card-slot"
                data-index={item.index}
                ref={(el) => {
                  if (el) virtualizer.measureElement(el);
                }}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <TaskCard
                  task={task}
                  status={status}
                  statusOf={props.statusOf}
                  stuck={props.stuck[task.id]?.reason}
                  readOnly={props.readOnly}
                  onMove={props.onMove}
                />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}

/**
 * The one line saying why a card is stuck, most pressing first: its blocked reason; what the server
 * found about its runs and agents (`server`: an approval waiting, a budget holding it, its agent
 * paused or silent); unmet dependencies; a lapsed claim.
 */
function whyStuck(
  task: BoardTask,
  server: string | undefined,
  statusOf: (id: string) => string | undefined,
  now: number,
): string | undefined {
  if (task.status === 'blocked') {
    const reason = (task.metadata as { blocked_reason?: unknown }).blocked_reason;
    return `Blocked: ${typeof reason === 'string' && reason ? reason : 'no reason given'}`;
  }
  if (server && task.status !== 'completed') return server;
  const unmet = task.dependency_ids.filter((id) => statusOf(id) !== 'completed');
  if (unmet.length > 0 && task.status !== 'completed')
    return `Waiting on ${unmet.length} unmet ${unmet.length === 1 ? 'dependency' : 'dependencies'}`;
  if (task.locked_by && task.lease_expires_at && Date.parse(task.lease_expires_at) < now) return `The claim of ${task.locked_by} lapsed`;
  return undefined;
}

function leaseLeft(until: string, now: number): string {
  const minutes = Math.round((Date.parse(until) - now) / 60_000);
  if (minutes < 1) return 'lease ends in under a minute';
  if (minutes < 90) return `lease ends in ${minutes} min`;
  return `lease ends in ${Math.round(minutes / 60)} h`;
}

function TaskCard(props: {
  task: BoardTask;
  status: string;
  statusOf(id: string): string | undefined;
  stuck: string | undefined;
  readOnly: boolean;
  onMove(task: BoardTask, status: string): void;
}) {
  const { task } = props;
  const menuOpen = useSignal(false);
  const now = Date.now();
  const stuck = whyStuck(task, props.stuck, props.statusOf, now);
  const titleId = `card-${task.id}`;
  return (
    <article
      class={`task-card priority-${task.priority}`}
      aria-labelledby={titleId}
      data-list-item
      tabIndex={-1}
      draggable={!props.readOnly}
      onDragStart={(e) => {
        e.dataTransfer?.setData('text/x-task-id', task.id);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
      }}
    >
      <h3 id={titleId}>
        <a href={`/tasks/${task.id}`}>{task.title}</a>
      </h3>
      <dl class="card-facts">
        <div>
          <dt>Priority</dt>
          <dd>{task.priority}</dd>
        </div>
        {task.owner ? (
          <div>
            <dt>Owner</dt>
            <dd>{task.owner}</dd>
          </div>
        ) : null}
        {task.due_date ? (
          <div>
            <dt>Due</dt>
            <dd>{new Date(task.due_date).toLocaleDateString()}</dd>
          </div>
        ) : null}
        {task.locked_by ? (
          <div>
            <dt>Claimed by</dt>
            <dd>
              {task.locked_by}
              {task.lease_expires_at && Date.parse(task.lease_expires_at) > now ? `, ${leaseLeft(task.lease_expires_at, now)}` : ''}
            </dd>
          </div>
        ) : null}
        {task.dependency_ids.length > 0 ? (
          <div>
            <dt>Dependencies</dt>
            <dd>{task.dependency_ids.length}</dd>
          </div>
        ) : null}
      </dl>
      {stuck ? <p class="stuck">{stuck}</p> : null}
      {!props.readOnly ? (
        <div class="move-to">
          <button type="button" aria-haspopup="menu" aria-expanded={menuOpen.value} onClick={() => (menuOpen.value = !menuOpen.value)}>
            Move to
          </button>
          {menuOpen.value ? (
            <ul
              role="menu"
              aria-label={`Move “${task.title}” to`}
              onKeyDown={(e) => {
                if (e.key === 'Escape') menuOpen.value = false;
              }}
            >
              {boardMovesFrom(props.status).map((target) => (
                <li key={target} role="none">
                  <button
                    type="button"
                    role="menuitem"
                    onClick={() => {
                      menuOpen.value = false;
                      props.onMove(task, target);
                    }}
                  >
                    {statusLabel(target)}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </article>
  );
}
