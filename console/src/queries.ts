import { signal, type Signal } from '@preact/signals';
import { useLayoutEffect, useMemo } from 'preact/hooks';

/**
 * The one cache of what the screens show. A query is a key, the topics whose changes make it stale,
 * and its loader. Stream events invalidate topics; a stale query on screen is refetched MERGE_MS
 * after the change that made it stale, so the changes that come with it are answered by one fetch.
 * Under a flow of changes (FLOW_CHANGES or more to a query within a second) the page paces itself:
 * a query waits its spacing (REFETCH_SPACING_MS, a second, unless it asks for more) after its last
 * fetch the stream caused, and the queries that are due then start one a second for the whole page,
 * first due first served, so a flow costs a page about one request a second however many events
 * arrive, while changes made one after another still each show within the second. A query already
 * in flight is not fetched a second time beside itself: it is fetched once more after it lands,
 * spacing kept. A summary seen beside another screen (the navigation's Inbox count) asks for a
 * longer spacing and is a background query: its fetches wait until the screen's own are answered,
 * so the screen shows first, and even for a lone change take their turn in the page's pace. The shortest spacing any mounted user asks for applies.
 * bench/console-board.ts measures the requests and the delay. Nothing is refetched without an
 * event: the stream says when something changed.
 */
export type Topic = 'tasks' | 'projects' | 'runs' | 'approvals' | 'budgets' | 'agents' | 'webhooks' | 'doctor' | 'settings';

/** A lone change waits this long for the changes that come with it before its queries refetch. */
export const MERGE_MS = 250;
/** A query on screen starts at most one fetch per this many ms while events keep coming. */
export const REFETCH_SPACING_MS = 1000;
/** This many changes to a query within a second make a flow, which the spacings then pace. */
export const FLOW_CHANGES = 5;

interface Entry {
  data: Signal<unknown>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  topics: readonly Topic[];
  load: () => Promise<unknown>;
  inFlight: boolean;
  again: boolean;
  stale: boolean;
  /** The spacing each mounted user asked for (one element per mount). */
  spacings: number[];
  /** When the last fetch the stream caused started. */
  lastStarted: number;
  /** When the changes of the last second arrived (a flow when FLOW_CHANGES or more). */
  changes: number[];
  due: ReturnType<typeof setTimeout> | undefined;
  /** Mounted users that show this query as their screen's own; with none it is a background query. */
  foregroundUsers: number;
  /** Whether the fetch in flight counts in foregroundInFlight. */
  countedForeground: boolean;
}

const entries = new Map<string, Entry>();
/** Fetches of screens' own queries in flight; background fetches wait for none to be. */
let foregroundInFlight = 0;
/** When the page last started a fetch the stream caused: under a flow, one a second for the whole page. */
let lastPaced = -Infinity;
/** Flowing queries whose own spacing has passed, served one a second in the order they became due. */
const paced: Entry[] = [];
let pacer: ReturnType<typeof setTimeout> | undefined;
/** Background queries waiting for the foreground fetches, each with whether the stream asked. */
const waitingBackground = new Map<Entry, boolean>();

const spacingOf = (entry: Entry) => (entry.spacings.length > 0 ? Math.min(...entry.spacings) : REFETCH_SPACING_MS);

function run(entry: Entry, byEvent = false): void {
  if (entry.inFlight) {
    entry.again = true;
    return;
  }
  clearTimeout(entry.due); // this fetch answers for every change before it
  entry.due = undefined;
  if (paced.includes(entry)) paced.splice(paced.indexOf(entry), 1);
  const background = entry.foregroundUsers === 0;
  if (background && (foregroundInFlight > 0 || !waitingBackground.has(entry))) {
    // even with nothing in flight, wait for the screen mounted beside it to start its own reads
    if (!waitingBackground.has(entry)) queueMicrotask(releaseBackground);
    waitingBackground.set(entry, byEvent || (waitingBackground.get(entry) ?? false));
    return;
  }
  waitingBackground.delete(entry);
  entry.countedForeground = !background;
  if (!background) foregroundInFlight++;
  entry.inFlight = true;
  entry.stale = false;
  // only refetches the stream caused count toward the spacing: a change right after a screen opens shows at once
  if (byEvent) entry.lastStarted = lastPaced = Date.now();
  entry.loading.value = true;
  entry
    .load()
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
        schedule(entry);
      }
      if (entry.countedForeground && --foregroundInFlight === 0) releaseBackground();
    });
}

/** Starts the background fetches that waited, once no fetch of a screen's own is in flight. */
function releaseBackground(): void {
  if (foregroundInFlight > 0) return;
  for (const [entry, byStream] of [...waitingBackground]) {
    if (entry.spacings.length > 0) run(entry, byStream);
    waitingBackground.delete(entry);
  }
}

/** Refetches the entry once its merge window and its spacing have passed (if still on screen then). */
function schedule(entry: Entry): void {
  if (entry.spacings.length === 0) {
    entry.stale = true;
    return;
  }
  if (entry.due !== undefined || paced.includes(entry)) return;
  const now = Date.now();
  const flowing = entry.changes.filter((at) => at > now - REFETCH_SPACING_MS).length >= FLOW_CHANGES;
  // a screen's own query answers a lone change at once; a background one always waits its turn in the pace
  if (!flowing && entry.foregroundUsers > 0) {
    entry.due = setTimeout(() => fire(entry), MERGE_MS);
    return;
  }
  entry.due = setTimeout(
    () => {
      entry.due = undefined;
      paced.push(entry);
      pace();
    },
    flowing ? Math.max(MERGE_MS, entry.lastStarted + spacingOf(entry) - now) : MERGE_MS,
  );
}

function fire(entry: Entry): void {
  entry.due = undefined;
  if (entry.spacings.length > 0) run(entry, true);
  else entry.stale = true;
}

/** Under a flow, the page starts one of the queries that are due a second, first due first served. */
function pace(): void {
  if (pacer !== undefined) return;
  pacer = setTimeout(
    () => {
      pacer = undefined;
      const next = paced.shift();
      if (next) fire(next);
      if (paced.length > 0) pace();
    },
    Math.max(0, lastPaced + REFETCH_SPACING_MS - Date.now()),
  );
}

/** Marks topics changed; what is on screen and shows them refetches within its window. */
export function invalidate(topics: readonly Topic[] | 'all'): void {
  const now = Date.now();
  for (const entry of entries.values()) {
    if (topics !== 'all' && !entry.topics.some((t) => topics.includes(t))) continue;
    entry.changes = entry.changes.filter((at) => at > now - REFETCH_SPACING_MS);
    entry.changes.push(now);
    schedule(entry);
  }
}

/** Refetches, now, every query on screen that is not already in flight (after a sign-in or a mutation). */
export function refetchNow(keyPrefix: string): void {
  for (const [key, entry] of entries) if (key.startsWith(keyPrefix) && entry.spacings.length > 0) run(entry);
}

export interface Query<T> {
  data: Signal<T | undefined>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  refetch(): void;
}

/**
 * The cached answer of `key`, fetched when first shown and refetched when the stream says one of
 * `topics` changed; `spacingMs` lengthens the wait between two fetches while changes keep coming.
 */
export function useQuery<T>(
  key: string,
  topics: readonly Topic[],
  load: () => Promise<T>,
  options: { spacingMs?: number; background?: boolean } = {},
): Query<T> {
  const spacing = options.spacingMs ?? REFETCH_SPACING_MS;
  const entry = useMemo(() => {
    let found = entries.get(key);
    if (!found) {
      found = {
        data: signal(undefined), error: signal(undefined), loading: signal(false), topics, load,
        inFlight: false, again: false, stale: true, spacings: [], lastStarted: -Infinity, changes: [], due: undefined, foregroundUsers: 0, countedForeground: false,
      };
      entries.set(key, found);
    }
    return found;
  }, [key]);
  entry.load = load; // the latest closure (its arguments come from the key)
  const foreground = !options.background;
  // a layout effect: the first fetch starts in the render's own task, not a frame later
  useLayoutEffect(() => {
    entry.spacings.push(spacing);
    if (foreground) entry.foregroundUsers++;
    // a fetch in flight (another user's, mounted first) answers this one too
    if (!entry.inFlight && (entry.stale || entry.data.value === undefined)) run(entry);
    return () => {
      entry.spacings.splice(entry.spacings.indexOf(spacing), 1);
      if (foreground) entry.foregroundUsers--;
    };
  }, [entry, spacing, foreground]);
  return { data: entry.data as Signal<T | undefined>, error: entry.error, loading: entry.loading, refetch: () => run(entry) };
}

/** Forgets every cached answer (sign-out: the next operator sees nothing of the last one's). */
export function clearQueries(): void {
  for (const entry of entries.values()) clearTimeout(entry.due);
  entries.clear();
  clearTimeout(pacer);
  pacer = undefined;
  paced.length = 0;
  waitingBackground.clear();
}
