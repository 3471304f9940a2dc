import type { Db } from '../ports';

/** What every phase of one tick shares. */
export interface TickContext {
  db: Db;
  actor: string;
  batchSize: number;
}

/**
 * Dispatch batches in flight at once when nothing couples them (they then touch disjoint runs and
 * insert, nothing else). Measured with 10,000 queued runs (bench/dispatcher-tick.ts, 2 cores):
 * one at a time ~1.3 s, two ~0.92 s, three no better. Recovery batches go two at a time too,
 * for the rules that end no run.
 */
export const DISPATCH_LANES = 2;
/** Bounds every loop of a tick: at most this many batches per phase. */
export const MAX_BATCHES = 1000;

/**
 * Runs `step` in `lanes` loops at once while `more(lane)` says so. A step that fails stops every
 * lane before its next step; the first failure is thrown once all have stopped, so no batch is
 * still running when the tick reports it.
 */
export async function inLanes(lanes: number, more: (lane: number) => boolean, step: () => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      while (!failure && more(lane)) {
        try {
          await step();
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}
