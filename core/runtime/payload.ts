import { RuntimeCallError } from '../errors';
import type { RuntimeDocument } from '../ports';

/**
 * Shape checks on what the runtime printed. A document that lacks what the contract promises
 * is the runtime's fault (bad_output, 502), never a crash of ours.
 */
export function arrayField(doc: RuntimeDocument, field: string, call: string): unknown[] {
  // The released runtime prints some lists as the document itself (`agents list`: a top-level array).
  if (Array.isArray(doc)) return doc;
  const value = doc[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RuntimeCallError(`runtime ${call}: "${field}" is not an array`, 'bad_output');
  return value;
}

/** The document's fields; a top-level array has none. */
export function fieldsOf(doc: RuntimeDocument): Record<string, unknown> {
  return Array.isArray(doc) ? {} : doc;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * The text of an agent turn: the contract's `reply`, else the released runtime's
 * `result.payloads[].text` (one payload per message the agent sent, joined by a blank line).
 */
export function replyText(doc: RuntimeDocument): string | null {
  const fields = fieldsOf(doc);
  if (typeof fields.reply === 'string') return fields.reply;
  const result = isRecord(fields.result) ? fields.result : undefined;
  if (!result || !Array.isArray(result.payloads)) return null;
  const texts = result.payloads.flatMap((p) => (isRecord(p) && typeof p.text === 'string' && p.text ? [p.text] : []));
  return texts.length ? texts.join('\n\n') : null;
}

/** Epoch milliseconds as ISO 8601, or null when absent or not a usable number. */
export function isoFromEpochMs(value: unknown): string | null {
  const ms = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
