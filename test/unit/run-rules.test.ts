import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recoveryRules } from '../../core/workflows/recovery-rules';
import {
  activeRunStatuses,
  knownRunStatuses,
  resumeTarget,
  runTransitions,
  terminalRunStatuses,
  transitionFor,
  transitionOf,
  type RunTrigger,
} from '../../core/workflows/run-status';

const triggers = runTransitions.map((t) => t.trigger);

describe('the run transitions table of spec 03 (core/workflows/run-status.ts)', () => {
  it('names each trigger once, and every status it moves from or to is a known status', () => {
    expect(new Set(triggers).size).toBe(triggers.length);
    const targets = runTransitions.map((t) => t.to).filter((to) => to !== 'same' && to !== 'paused_from');
    for (const status of [...runTransitions.flatMap((t) => t.from), ...targets]) expect(knownRunStatuses).toContain(status);
  });

  it("keeps spec 03's rows: dispatch, claim, the recovery moves and the budget stop", () => {
    expect(transitionFor('queued', 'dispatch')?.to).toBe('dispatched');
    expect(transitionFor('dispatched', 'claim')?.to).toBe('claimed');
    expect(transitionFor('dispatched', 'fail_unclaimed')?.to).toBe('failed');
    expect(transitionOf('release_silent_claim')).toMatchObject({ from: ['claimed'], to: 'dispatched', returnsToQueue: true });
    expect(transitionFor('running', 'time_out')?.to).toBe('timed_out');
    expect(transitionOf('budget_stop').to).toBe('cancelled');
    expect(runTransitions.filter((t) => t.spec).map((t) => t.trigger)).toEqual(
      expect.arrayContaining(['create', 'dispatch', 'claim', 'complete', 'cancel', 'override_to_queued'] satisfies RunTrigger[]),
    );
  });

  it('answers a transition exactly when the table lists the status for the trigger', () => {
    fc.assert(
      fc.property(fc.constantFrom(...knownRunStatuses), fc.constantFrom(...triggers), (status, trigger) => {
        const listed = runTransitions.find((t) => t.trigger === trigger)!.from.includes(status);
        expect(transitionFor(status, trigger) !== undefined).toBe(listed);
      }),
    );
  });

  it('lets no terminal run move except through override (reopen) and complete-after-failure', () => {
    const leaving = runTransitions.filter((t) => t.from.some((s) => terminalRunStatuses.includes(s))).map((t) => t.trigger);
    expect(leaving.sort()).toEqual(['override_to_completed', 'override_to_queued']);
  });

  it('splits the known statuses into active and terminal, with nothing in both or neither', () => {
    expect([...activeRunStatuses, ...terminalRunStatuses].sort()).toEqual([...knownRunStatuses].sort());
  });

  it('resumes a run paused before a session held it into the queue, otherwise where it was', () => {
    for (const from of [undefined, 'queued', 'dispatched', 'retrying'])
      expect(resumeTarget(from)).toEqual({ status: 'queued', returnsToQueue: true });
    for (const from of ['claimed', 'running', 'waiting_for_approval'])
      expect(resumeTarget(from)).toEqual({ status: from, returnsToQueue: false });
  });
});

describe('the recovery rules of spec 03 "Limits" (core/workflows/recovery-rules.ts)', () => {
  it('retries an unclaimed dispatch after 5 minutes up to 3 attempts, releases a silent claim after 10, times out after 60 by default', () => {
    expect(recoveryRules).toEqual({
      unclaimedAfterMs: 300_000,
      maxDispatchAttempts: 3,
      silentClaimAfterMs: 600_000,
      defaultTimeoutMinutes: 60,
    });
  });
});
