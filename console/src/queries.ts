import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';

/**
 * The one cache of what the screens show. A query is a key, the topics whose changes make it stale,
 * and its loader. Stream events invalidate topics; the invalidations of one window (MERGE_MS, well
 * under the second the console promises) are applied together, and a query already in flight is
 * not fetched a second time beside itself: it is fetched once more after it lands. Under a steady
 * flow of events the windows stretch to MIN_FLUSH_INTERVAL_MS, so a query refetches about 1.3 times
 * a second at most however many events arrive, while a lone change still shows within a second
 * (bench/console-board.ts measures both). There is no
 * timer-driven refetching: the stream says when something changed.
 */
export type Topic = 'tasks' | 'projects' | 'runs' | 'approvals' | 'budgets' | 'agents' | 'webhooks' | 'doctor' | 'settings';

export const MERGE_MS = 250;
/** Under a steady flow of events, flushes come at most this often (about one refetch per query a second, while a change still shows within a second). */
export const MIN_FLUSH_INTERVAL_MS = 750;

interface Entry {
  data: Signal<unknown>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  topics: readonly Topic[];
  load: () => Promise<unknown>;
  inFlight: boolean;
  again: boolean;
  stale: boolean;
  mounted: number;
}

const entries = new Map<string, Entry>();
let pending: Set<Topic> | 'all' | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let lastFlush = -Infinity;

function run(entry: Entry): void {
  if (entry.inFlight) {
    entry.again = true;
    return;
  }
  entry.inFlight = true;
  entry.stale = false;
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
        if (entry.mounted > 0) run(entry);
        else entry.stale = true;
      }
    });
}

function flush(): void {
  lastFlush = Date.now();
  const topics = pending;
  pending = undefined;
  timer = undefined;
  for (const entry of entries.values()) {
    if (topics !== 'all' && !entry.topics.some((t) => topics?.has(t))) continue;
    if (entry.mounted > 0) run(entry);
    else entry.stale = true;
  }
}

/** Marks topics changed; what is on screen refetches at the end of the merge window. */
export function invalidate(topics: readonly Topic[] | 'all'): void {
  if (topics === 'all') pending = 'all';
  else if (pending !== 'all') {
    pending ??= new Set();
    for (const t of topics) pending.add(t);
  }
  // a lone change shows within MERGE_MS; a burst is refetched every MIN_FLUSH_INTERVAL_MS, not once per event
  timer ??= setTimeout(flush, Math.max(MERGE_MS, lastFlush + MIN_FLUSH_INTERVAL_MS - Date.now()));
}

/** Refetches, now, every query on screen that is not already in flight (after a sign-in or a mutation). */
export function refetchNow(keyPrefix: string): void {
  for (const [key, entry] of entries) if (key.startsWith(keyPrefix) && entry.mounted > 0) run(entry);
}

export interface Query<T> {
  data: Signal<T | undefined>;
  error: Signal<string | undefined>;
  loading: Signal<boolean>;
  refetch(): void;
}

export function useQuery<T>(key: string, topics: readonly Topic[], load: () => Promise<T>): Query<T> {
  const entry = useMemo(() => {
    let found = entries.get(key);
    if (!found) {
      found = { data: signal(undefined), error: signal(undefined), loading: signal(false), topics, load, inFlight: false, again: false, stale: true, mounted: 0 };
      entries.set(key, found);
    }
    return found;
  }, [key]);
  entry.load = load; // the latest closure (its arguments come from the key)
  useEffect(() => {
    entry.mounted++;
    if (entry.stale || entry.data.value === undefined) run(entry);
    return () => {
      entry.mounted--;
    };
  }, [entry]);
  return { data: entry.data as Signal<T | undefined>, error: entry.error, loading: entry.loading, refetch: () => run(entry) };
}

/** Forgets every cached answer (sign-out: the next operator sees nothing of the last one's). */
export function clearQueries(): void {
  entries.clear();
}
