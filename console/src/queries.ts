import { effect, signal, type Signal } from '@preact/signals';
import { useLayoutEffect, useMemo } from 'preact/hooks';

/**
 * The one cache of what the screens show. A query is a key, the topics whose changes make it stale,
 * and its loader. Stream events make the queries on screen that show those topics due; the page
 * starts the due fetches by three rules:
 * - a lone change: a screen's own queries refetch MERGE_MS after it (the changes that come with it
 *   are answered by the same fetch), all of them at once;
 * - a flow (FLOW_CHANGES or more changes within a second, counted for the whole page): the page
 *   starts one fetch the stream caused per PACE_MS, the query due longest first, each query also
 *   waiting its own spacing after its last such fetch. The first fetch of a flow is the lone
 *   change's, and every change after it is merged into the next turn, so a flow costs a page one
 *   request a second whatever the number of its queries or events, and a change waits at most a
 *   turn and its fetch;
 * - a background query (a summary shown beside the screen: the navigation's Inbox count) always
 *   takes a turn of that pace (under a flow after its own longer spacing too), and never while a
 *   fetch of the screen's own is in flight, so it neither delays the screen's first answer nor adds
 *   requests to a flow.
 * A query in flight is never fetched a second time beside itself: a change during the fetch makes it
 * due again once it lands. A query may name a smaller first answer (the board's first screenful of
 * each column): asked for by its first fetch only, never when the stream caused the fetch, before
 * the whole answer, which is asked for once it has landed and replaces it. Only fetches the stream caused take turns; a screen opening, a sign-in or
 * the operator's own action fetches at once. bench/console-board.ts measures the requests and the
 * delay. Nothing is refetched without an event: the stream says when something changed.
 */
export type Topic = 'tasks' | 'projects' | 'runs' | 'approvals' | 'budgets' | 'agents' | 'webhooks' | 'doctor' | 'settings' | 'restores';

/** A lone change waits this long for the changes that come with it before its queries refetch. */
export const MERGE_MS = 250;
/** Under a flow, the page starts one fetch the stream caused per this many ms. */
export const PACE_MS = 1000;
/** This many changes to what the page shows within PACE_MS make a flow. */
export const FLOW_CHANGES = 5;

interface Entry {
  data: Signal<unknown>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  topics: readonly Topic[];
  load: () => Promise<unknown>;
  /** A smaller first answer, shown until the first whole one lands. */
  first: (() => Promise<unknown>) | undefined;
  inFlight: boolean;
  /** Changed while its fetch was in flight: due again once it lands. */
  again: boolean;
  /** Changed while no screen showed it: fetched when next shown. */
  stale: boolean;
  /** Since when a change has been waiting for this query's next fetch (undefined: none waits). */
  dueSince: number | undefined;
  /** The spacing each mounted user asked for (one element per mount). */
  spacings: number[];
  /** When the last fetch the stream caused started. */
  lastStarted: number;
  /** Mounted users that show this query as their screen's own; with none it is a background query. */
  foregroundUsers: number;
  /** Whether the fetch in flight counts in foregroundInFlight. */
  countedForeground: boolean;
}

const entries = new Map<string, Entry>();
/** Fetches of screens' own queries in flight; a background fetch waits for none to be. */
let foregroundInFlight = 0;
/** When the page last started a fetch the stream caused (the pace's last turn). */
let lastTurn = -Infinity;
/** When the recent changes to what the page shows arrived (a flow when FLOW_CHANGES within PACE_MS). */
let changes: number[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

const spacingOf = (entry: Entry) => (entry.spacings.length > 0 ? Math.min(...entry.spacings) : PACE_MS);
const shown = (entry: Entry) => entry.spacings.length > 0;

/** The earliest moment a due query may start its fetch (Infinity: when a screen's fetch lands). */
function startableAt(entry: Entry, now: number, flowing: boolean): number {
  const due = entry.dueSince ?? now;
  const paced = Math.max(due + MERGE_MS, lastTurn + PACE_MS, flowing ? entry.lastStarted + spacingOf(entry) : -Infinity);
  if (entry.foregroundUsers === 0) {
    if (foregroundInFlight > 0) return Infinity;
    if (entry.data.value === undefined) return now; // its first answer, right after the screen's
    return paced;
  }
  return flowing ? paced : due + MERGE_MS;
}

/** Starts every due query whose moment has come (one turn of the pace at a time), then waits for the next. */
function plan(): void {
  clearTimeout(timer);
  timer = undefined;
  const now = Date.now();
  changes = changes.filter((at) => at > now - PACE_MS);
  const flowing = changes.length >= FLOW_CHANGES;
  const due = () =>
    [...entries.values()].filter((e) => e.dueSince !== undefined && !e.inFlight && shown(e)).sort((a, b) => a.dueSince! - b.dueSince!);
  for (;;) {
    const next = due().find((e) => startableAt(e, now, flowing) <= now);
    if (!next) break;
    // a background query's first answer is not the stream's doing: it takes no turn
    run(next, next.foregroundUsers > 0 || next.data.value !== undefined);
  }
  const wake = Math.min(...due().map((e) => startableAt(e, now, flowing)));
  // a flow ends when fewer than FLOW_CHANGES of its changes are under a second old: what waits may start sooner then
  const flowEnds = flowing ? changes[changes.length - FLOW_CHANGES]! + PACE_MS : Infinity;
  const at = Math.min(wake, Number.isFinite(wake) ? flowEnds : Infinity);
  if (Number.isFinite(at)) timer = setTimeout(plan, Math.max(0, at - now));
}

/** Starts the entry's fetch; `screen` counts it as the screen's own before the screen has mounted. */
function run(entry: Entry, byStream = false, screen = false): void {
  if (entry.inFlight) {
    entry.again = true;
    return;
  }
  entry.dueSince = undefined; // this fetch answers for every change before it
  entry.countedForeground = screen || entry.foregroundUsers > 0;
  if (entry.countedForeground) foregroundInFlight++;
  entry.inFlight = true;
  entry.stale = false;
  // only fetches the stream caused take turns: a change right after a screen opens shows at once
  if (byStream) entry.lastStarted = lastTurn = Date.now();
  entry.loading.value = true;
  // the first answer alone at first, so that nothing competes with it (and the query is still never
  // fetched twice at once); the whole answer is asked for once it has landed, and replaces it
  const first =
    entry.first && entry.data.value === undefined && !byStream
      ? entry.first().then(
          (data) => {
            if (entry.data.value === undefined) entry.data.value = data;
          },
          () => undefined, // the whole answer's fetch says what went wrong
        )
      : undefined;
  (first ? first.then(() => entry.load()) : entry.load())
    .then(
      (data) => {
        entry.data.value = data;
        entry.error.value = undefined;
      },
      (err: Error) => {
        entry.error.value = err.message;
      },
    )
    .finally(() => {
      entry.inFlight = false;
      entry.loading.value = false;
      if (entry.again) {
        entry.again = false;
        if (shown(entry)) entry.dueSince ??= Date.now();
        else entry.stale = true;
      }
      if (entry.countedForeground) foregroundInFlight--;
      entry.countedForeground = false;
      plan();
    });
}

/** Marks topics changed; what is on screen and shows them refetches by the rules above. */
export function invalidate(topics: readonly Topic[] | 'all'): void {
  const now = Date.now();
  let touched = false;
  for (const entry of entries.values()) {
    if (topics !== 'all' && !entry.topics.some((t) => topics.includes(t))) continue;
    if (!shown(entry)) entry.stale = true;
    else if (entry.inFlight) entry.again = true;
    else entry.dueSince ??= now;
    touched ||= shown(entry);
  }
  if (!touched) return;
  changes.push(now);
  plan();
}

/** Refetches, now, every query on screen that is not already in flight (after a sign-in or a mutation). */
export function refetchNow(keyPrefix: string): void {
  for (const [key, entry] of entries) if (key.startsWith(keyPrefix) && shown(entry)) run(entry);
}

function entryOf(key: string, topics: readonly Topic[], load: () => Promise<unknown>, first?: () => Promise<unknown>): Entry {
  let found = entries.get(key);
  if (!found) {
    found = {
      data: signal(undefined),
      error: signal(undefined),
      loading: signal(false),
      topics,
      load,
      first,
      inFlight: false,
      again: false,
      stale: true,
      dueSince: undefined,
      spacings: [],
      lastStarted: -Infinity,
      foregroundUsers: 0,
      countedForeground: false,
    };
    entries.set(key, found);
  }
  return found;
}

/**
 * Starts the first read of the screen the page opens on before the shell around it renders, so the
 * request travels while the page draws; the screen's useQuery of the same key finds it in flight.
 * Resolves once the query has an answer to show (its first, or its whole) or its fetch has ended.
 */
export function prefetch(
  key: string,
  topics: readonly Topic[],
  load: () => Promise<unknown>,
  first?: () => Promise<unknown>,
): Promise<void> {
  const entry = entryOf(key, topics, load, first);
  if (!entry.inFlight && entry.data.value === undefined) run(entry, false, true);
  return new Promise((resolve) => {
    const stop = effect(() => {
      if (entry.data.value === undefined && entry.loading.value) return;
      resolve();
      queueMicrotask(() => stop());
    });
  });
}

export interface Query<T> {
  data: Signal<T | undefined>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  refetch(): void;
}

/**
 * The cached answer of `key`, fetched when first shown and refetched when the stream says one of
 * `topics` changed; `spacingMs` lengthens the wait between two fetches while changes keep coming;
 * `first` loads a smaller answer shown while the first whole one travels.
 */
export function useQuery<T>(
  key: string,
  topics: readonly Topic[],
  load: () => Promise<T>,
  options: { spacingMs?: number; background?: boolean; first?: () => Promise<T> } = {},
): Query<T> {
  const spacing = options.spacingMs ?? PACE_MS;
  const entry = useMemo(() => entryOf(key, topics, load), [key]);
  entry.load = load; // the latest closure (its arguments come from the key)
  entry.first = options.first;
  const foreground = !options.background;
  // a layout effect: the first fetch starts in the render's own task, not a frame later
  useLayoutEffect(() => {
    entry.spacings.push(spacing);
    if (foreground) entry.foregroundUsers++;
    // a fetch in flight (another user's, mounted first) answers this one too
    if (!entry.inFlight && (entry.stale || entry.data.value === undefined)) {
      if (foreground) run(entry);
      else {
        // after the screen mounted beside it has started its own reads (their layout effects run later in this task)
        entry.dueSince ??= Date.now();
        queueMicrotask(plan);
      }
    }
    return () => {
      entry.spacings.splice(entry.spacings.indexOf(spacing), 1);
      if (foreground) entry.foregroundUsers--;
    };
  }, [entry, spacing, foreground]);
  return { data: entry.data as Signal<T | undefined>, error: entry.error, loading: entry.loading, refetch: () => run(entry) };
}

/** Forgets every cached answer (sign-out: the next operator sees nothing of the last one's). */
export function clearQueries(): void {
  entries.clear();
  clearTimeout(timer);
  timer = undefined;
  changes = [];
  lastTurn = -Infinity;
}
