import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';

/**
 * The one cache of what the screens show. A query is a key, the topics whose changes make it stale,
 * and its loader. Stream events invalidate topics; a stale query on screen is refetched MERGE_MS
 * after the change that made it stale, and never sooner than its spacing after its previous fetch
 * started (REFETCH_SPACING_MS, the one-second window the console promises), so a flow of events
 * costs each query at most one request a second however many arrive. A query already in flight is
 * not fetched a second time beside itself: it is fetched once more after it lands, spacing kept.
 * A query whose answer is a summary seen beside another screen (the navigation's Inbox count) asks
 * for a longer spacing; the longest wait of a query is the shortest its mounted users ask for.
 * bench/console-board.ts measures the requests and the delay. Nothing is refetched on a timer
 * without an event: the stream says when something changed.
 */
export type Topic = 'tasks' | 'projects' | 'runs' | 'approvals' | 'budgets' | 'agents' | 'webhooks' | 'doctor' | 'settings';

/** A lone change waits this long for the changes that come with it before its queries refetch. */
export const MERGE_MS = 250;
/** A query on screen starts at most one fetch per this many ms while events keep coming. */
export const REFETCH_SPACING_MS = 1000;

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
  due: ReturnType<typeof setTimeout> | undefined;
}

const entries = new Map<string, Entry>();

const spacingOf = (entry: Entry) => (entry.spacings.length > 0 ? Math.min(...entry.spacings) : REFETCH_SPACING_MS);

function run(entry: Entry, byEvent = false): void {
  if (entry.inFlight) {
    entry.again = true;
    return;
  }
  clearTimeout(entry.due); // this fetch answers for every change before it
  entry.due = undefined;
  entry.inFlight = true;
  entry.stale = false;
  // only refetches the stream caused count toward the spacing: a change right after a screen opens shows at once
  if (byEvent) entry.lastStarted = Date.now();
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
    });
}

/** Refetches the entry once its merge window and its spacing have passed (if still on screen then). */
function schedule(entry: Entry): void {
  if (entry.spacings.length === 0) {
    entry.stale = true;
    return;
  }
  if (entry.due !== undefined) return;
  const wait = Math.max(MERGE_MS, entry.lastStarted + spacingOf(entry) - Date.now());
  entry.due = setTimeout(() => {
    entry.due = undefined;
    if (entry.spacings.length > 0) run(entry, true);
    else entry.stale = true;
  }, wait);
}

/** Marks topics changed; what is on screen and shows them refetches within its window. */
export function invalidate(topics: readonly Topic[] | 'all'): void {
  for (const entry of entries.values()) if (topics === 'all' || entry.topics.some((t) => topics.includes(t))) schedule(entry);
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
export function useQuery<T>(key: string, topics: readonly Topic[], load: () => Promise<T>, options: { spacingMs?: number } = {}): Query<T> {
  const spacing = options.spacingMs ?? REFETCH_SPACING_MS;
  const entry = useMemo(() => {
    let found = entries.get(key);
    if (!found) {
      found = {
        data: signal(undefined), error: signal(undefined), loading: signal(false), topics, load,
        inFlight: false, again: false, stale: true, spacings: [], lastStarted: -Infinity, due: undefined,
      };
      entries.set(key, found);
    }
    return found;
  }, [key]);
  entry.load = load; // the latest closure (its arguments come from the key)
  useEffect(() => {
    entry.spacings.push(spacing);
    if (entry.stale || entry.data.value === undefined) run(entry);
    return () => {
      entry.spacings.splice(entry.spacings.indexOf(spacing), 1);
    };
  }, [entry, spacing]);
  return { data: entry.data as Signal<T | undefined>, error: entry.error, loading: entry.loading, refetch: () => run(entry) };
}

/** Forgets every cached answer (sign-out: the next operator sees nothing of the last one's). */
export function clearQueries(): void {
  for (const entry of entries.values()) clearTimeout(entry.due);
  entries.clear();
}
