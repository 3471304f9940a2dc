import { RuntimeCallError } from '../errors';

/**
 * Shape checks on what the runtime printed. A document that lacks what the contract promises
 * is the runtime's fault (bad_output, 502), never a crash of ours.
 */
export function arrayField(doc: Record<string, unknown>, field: string, call: string): unknown[] {
  const value = doc[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RuntimeCallError(`runtime ${call}: "${field}" is not an array`, 'bad_output');
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** Epoch milliseconds as ISO 8601, or null when absent or not a usable number. */
export function isoFromEpochMs(value: unknown): string | null {
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
