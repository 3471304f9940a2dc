import { describe, expect, it } from 'vitest';
import {
  buildGovernancePolicySummary,
  evaluateGovernanceAction,
  governanceActions,
  governanceRules,
  resolveActor,
} from '../../core/workflows/governance';

describe('governance actor resolution (spec 03 order)', () => {
  it('gives system, dashboard-operator and the runtime actor full operator privileges for every action', () => {
    for (const name of ['system', 'dashboard-operator', 'runtime']) {
      const actor = resolveActor(name, { role: 'external', capabilities: [] });
      expect(actor).toMatchObject({ role: 'operator', source: 'privileged' });
      for (const action of governanceActions) expect(evaluateGovernanceAction(action, actor).allowed).toBe(true);
    }
  });

  it('gives ops-*, *-operator, *-controller and *-director names the operator role before any stored profile', () => {
    for (const name of ['ops-night', 'fleet-operator', 'queue-controller', 'content-director']) {
      const actor = resolveActor(name, { role: 'specialist', capabilities: [] });
      expect(actor).toMatchObject({ role: 'operator', source: 'name_pattern' });
      expect(evaluateGovernanceAction('cancel_run', actor).allowed).toBe(true);
    }
    expect(resolveActor('operator-x').source).toBe('unknown');
    expect(resolveActor('xops-1').source).toBe('unknown');
  });

  it('takes role and capabilities from the stored agent profile otherwise', () => {
    const writer = resolveActor('writer', { role: 'specialist', capabilities: ['drafting'] });
    expect(writer).toEqual({ name: 'writer', role: 'specialist', capabilities: ['drafting'], source: 'agent_profile' });
    expect(evaluateGovernanceAction('launch_workflow', writer).allowed).toBe(true);
    expect(evaluateGovernanceAction('cancel_run', writer).allowed).toBe(false);
    const auditor = resolveActor('auditor', { role: null, capabilities: ['auditing'] });
    expect(evaluateGovernanceAction('approve', auditor).allowed).toBe(true);
    expect(evaluateGovernanceAction('pause_run', auditor).allowed).toBe(false);
  });

  it('treats unknown actors as external with no capabilities, refused everywhere with a reason naming what is missing', () => {
    const verdict = evaluateGovernanceAction('override_failure', 'stranger');
    expect(verdict.actor).toEqual({ name: 'stranger', role: 'external', capabilities: [], source: 'unknown' });
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toMatch(/override_failure/);
    expect(verdict.reason).toMatch(/repair/);
    for (const action of governanceActions) expect(evaluateGovernanceAction(action, 'stranger').allowed).toBe(false);
  });
});

describe('governance rule table', () => {
  it('allows exactly the listed roles and capabilities of each row', () => {
    const everyRole = ['orchestrator', 'pipeline', 'specialist', 'operator', 'external'];
    for (const action of governanceActions) {
      const rule = governanceRules[action];
      for (const role of everyRole) {
        const verdict = evaluateGovernanceAction(action, { name: 'a', role, capabilities: [], source: 'agent_profile' });
        expect(verdict.allowed, `${action} by role ${role}`).toBe(rule.roles.includes(role));
      }
      for (const capability of rule.capabilities) {
        const verdict = evaluateGovernanceAction(action, {
          name: 'a',
          role: 'external',
          capabilities: [capability],
          source: 'agent_profile',
        });
        expect(verdict.allowed, `${action} with ${capability}`).toBe(true);
      }
    }
  });

  it('summarizes policies as {action, label, roles, capabilities}, all actions by default', () => {
    const all = buildGovernancePolicySummary();
    expect(all.map((p) => p.action)).toEqual([...governanceActions]);
    const some = buildGovernancePolicySummary(['approve', 'cancel_run']);
    expect(some).toEqual([
      {
        action: 'approve',
        label: expect.any(String),
        roles: ['orchestrator', 'operator'],
        capabilities: ['quality', 'auditing', 'management'],
      },
      {
        action: 'cancel_run',
        label: expect.any(String),
        roles: ['orchestrator', 'operator'],
        capabilities: ['orchestration', 'management'],
      },
    ]);
  });
});
