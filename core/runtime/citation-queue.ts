import type { Deps } from '../ports';
import { isRecord } from './payload';

/** Entry statuses that still wait for work; an entry without a status is waiting too. */
const PENDING_STATUSES = new Set(['pending', 'queued']);

/**
 * GET /api/citation-queue/status from the queue file another process keeps under DATA_DIR:
 * a JSON array of entries, or {items: [...]}. No file means an empty queue (zeros); a file that
 * cannot be read as a queue answers success false with the reason, never a 500.
 */
export async function citationQueueStatus(deps: Pick<Deps, 'clock' | 'citationQueue'>) {
  const timestamp = deps.clock.now().toISOString();
  const text = await deps.citationQueue.read().catch((err: Error) => ({ failed: err.message }));
  if (text === undefined) return { success: true, pending: 0, total: 0, timestamp };
  if (typeof text !== 'string') return { success: false, pending: 0, total: 0, timestamp, error: `queue file unreadable: ${text.failed}` };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { success: false, pending: 0, total: 0, timestamp, error: 'queue file is not valid JSON' };
  }
  const items = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc.items) ? doc.items : undefined;
  if (!items) return { success: false, pending: 0, total: 0, timestamp, error: 'queue file holds neither an array nor {items: [...]}' };
  const pending = items.filter(
    (i) => !isRecord(i) || i.status === undefined || (typeof i.status === 'string' && PENDING_STATUSES.has(i.status)),
  ).length;
  return { success: true, pending, total: items.length, timestamp };
}
