import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../../core/errors';
import { statusByErrorCode } from '../../handlers/middleware/error-status';

/** Every code a domain error class declares, read from its source (`readonly code = '…'` or a union of literals). */
function declaredCodes(): string[] {
  const source = readFileSync(path.resolve(__dirname, '../../core/errors.ts'), 'utf8');
  return [...source.matchAll(/readonly code(?::\s*([^;=]+))?(?:\s*=\s*'([a-z_]+)')?;/g)].flatMap(([, union, literal]) =>
    literal ? [literal] : [...(union ?? '').matchAll(/'([a-z_]+)'/g)].map(([, c]) => c!),
  );
}

describe('the one error table (handlers/middleware/error-status.ts)', () => {
  it('maps every code a domain error declares, and nothing else', () => {
    const codes = declaredCodes();
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.filter((c) => statusByErrorCode[c] === undefined)).toEqual([]);
    expect(Object.keys(statusByErrorCode).filter((c) => !codes.includes(c))).toEqual([]);
  });

  it('a kind answered 5xx (logged as a failure) records its stack; a kind answered 4xx (an answer) does not', () => {
    const source = readFileSync(path.resolve(__dirname, '../../core/errors.ts'), 'utf8');
    const classes = [...source.matchAll(/export class (\w+) extends DomainError \{[^]*?readonly code = '([a-z_]+)'/g)];
    expect(classes.length).toBeGreaterThan(20);
    for (const [, name, code] of classes) {
      const kind = (errors as unknown as Record<string, typeof errors.DomainError>)[name!]!;
      expect(kind.traced, `${name} (${code} -> ${statusByErrorCode[code!]})`).toBe(statusByErrorCode[code!]! >= 500);
    }
    const conflict = new errors.ConflictError('task t is already locked by a');
    expect(conflict.stack).toBe('ConflictError: task t is already locked by a');
    expect(new errors.StorageUnavailableError('database unavailable').stack).toMatch(/\n\s+at /);
    // the process's own limit is left as it was
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });

  it('answers only 2xx for the degraded read and 4xx or 5xx for everything else', () => {
    for (const [code, status] of Object.entries(statusByErrorCode)) {
      if (code === 'degraded') expect(status).toBe(200);
      else expect(status >= 400 && status < 600, `${code} -> ${status}`).toBe(true);
    }
  });
});

describe('error bodies', () => {
  it('are {error, code, ...extra}, validation errors adding details[{path, message}]', () => {
    expect(new errors.NotFoundError('task 1 not found').body()).toEqual({ error: 'task 1 not found', code: 'not_found' });
    expect(new errors.ValidationError('title: required', [{ path: 'title', message: 'required' }]).body()).toEqual({
      error: 'title: required',
      code: 'validation_failed',
      details: [{ path: 'title', message: 'required' }],
    });
  });

  it("carry spec 02's fixed bodies exactly where the spec fixes them", () => {
    const receipt = { action_id: 'a' };
    expect(new errors.StaleRetryError().body()).toEqual({ error: 'stale_retry' });
    expect(new errors.InvalidActionError([{ path: 'kind', message: 'unknown' }]).body()).toEqual({
      error: 'invalid_action',
      details: [{ path: 'kind', message: 'unknown' }],
    });
    expect(new errors.ActionsUnavailableError('receipts_unavailable').body()).toEqual({ available: false, reason: 'receipts_unavailable' });
    expect(new errors.GovernanceRejectedError('no capability', { receipt }).body()).toEqual({
      error: 'rejected_governance',
      reason: 'no capability',
      receipt,
    });
    expect(new errors.BudgetBlockedError('hard_stop', []).body()).toEqual({ error: 'budget_blocked', action: 'hard_stop', budgets: [] });
    expect(new errors.ActionFailedError('gone', receipt, true)).toMatchObject({ code: 'action_target_missing' });
    expect(new errors.ActionFailedError('bad', receipt, false).body()).toEqual({ error: 'execution_failed', message: 'bad', receipt });
    expect(new errors.BudgetNotFoundError().body()).toEqual({ available: false, reason: 'not_found' });
    expect(new errors.DegradedError('query_failed', { window_days: 7 }).body()).toEqual({
      available: false,
      reason: 'query_failed',
      window_days: 7,
    });
    expect(new errors.ValidationFailedError(new errors.ValidationError('days: must be a number')).body()).toEqual({
      error: 'validation_failed',
      details: [{ path: 'request', message: 'days: must be a number' }],
    });
  });
});
