import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/use-app';
import { auditActions, uniqueName } from './workflow-support';

const app = useTestApp();

describe('workflow templates', () => {
  it('creates a template with string and object steps, and reads it back by name', async () => {
    const name = uniqueName('tpl');
    const steps = ['draft', { name: 'review', display_name: 'Editorial review', required: true }, { name: 'publish' }];
    const res = await app.call('POST', '/api/workflow-templates', {
      body: { name, steps, department_id: 'content', ui_category: 'editorial' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name,
      display_name: name,
      description: '',
      steps,
      department_id: 'content',
      ui_category: 'editorial',
      is_active: true,
    });
    const got = await app.call('GET', `/api/workflow-templates/${name}`);
    expect(got.status).toBe(200);
    expect(got.body.steps).toEqual(steps);
    expect((await auditActions(app, name)).map((a) => a.action)).toEqual(['created']);
  });

  it('refuses names outside [a-z0-9-]+, duplicate names with 409, and bad steps naming the field', async () => {
    for (const name of ['Upper', 'with space', 'under_score', '']) {
      const res = await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a'] } });
      expect(res.status, name).toBe(400);
      expect(res.body.error).toMatch(/name/);
    }
    const name = uniqueName('tpl');
    expect((await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a'] } })).status).toBe(201);
    const dup = await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a'] } });
    expect(dup.status).toBe(409);
    for (const steps of [[], 'a', [1], [{ title: 'x' }], ['a', 'a'], [{ name: '' }]]) {
      const res = await app.call('POST', '/api/workflow-templates', { body: { name: uniqueName('tpl'), steps } });
      expect(res.status, JSON.stringify(steps)).toBe(400);
      expect(res.body.error).toMatch(/steps/);
    }
    const unknown = await app.call('POST', '/api/workflow-templates', { body: { name: uniqueName('tpl'), steps: ['a'], colour: 'red' } });
    expect(unknown.status).toBe(400);
  });

  it('lists templates filtered by department_id and ui_category, and ignores unknown query parameters, naming them', async () => {
    const a = uniqueName('tpl');
    const b = uniqueName('tpl');
    await app.call('POST', '/api/workflow-templates', { body: { name: a, steps: ['x'], department_id: 'ops-dept', ui_category: 'maint' } });
    await app.call('POST', '/api/workflow-templates', { body: { name: b, steps: ['x'], department_id: 'ops-dept', ui_category: 'other' } });
    const byDept = await app.call('GET', '/api/workflow-templates?department_id=ops-dept');
    expect(byDept.body.templates.map((t: { name: string }) => t.name).sort()).toEqual([a, b].sort());
    const both = await app.call('GET', '/api/workflow-templates?department_id=ops-dept&ui_category=maint');
    expect(both.body.templates.map((t: { name: string }) => t.name)).toEqual([a]);
    const all = await app.call('GET', '/api/workflow-templates');
    expect(all.body.templates.some((t: { name: string }) => t.name === 'system-scan')).toBe(true);
    const coloured = await app.call('GET', '/api/workflow-templates?colour=red&department_id=ops-dept');
    expect(coloured.status).toBe(200);
    expect(coloured.headers['x-ignored-params']).toBe('colour');
    expect(coloured.body).toEqual(byDept.body);
  });

  it('patches any field but the name, audits before and after, and 404s an unknown template', async () => {
    const name = uniqueName('tpl');
    await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a'] } });
    const res = await app.call('PATCH', `/api/workflow-templates/${name}`, {
      body: { steps: ['a', 'b'], is_active: false, description: 'two steps' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ steps: ['a', 'b'], is_active: false, description: 'two steps' });
    expect((await app.call('PATCH', `/api/workflow-templates/${name}`, { body: { name: 'other' } })).status).toBe(400);
    expect((await app.call('PATCH', `/api/workflow-templates/${name}`, { body: {} })).status).toBe(400);
    expect((await app.call('PATCH', '/api/workflow-templates/nope-none', { body: { description: 'x' } })).status).toBe(404);
    expect((await app.call('GET', '/api/workflow-templates/Bad_Name')).status).toBe(400);
    const audit = await app.db.query<{ action: string }>(
      'SELECT action, old_value, new_value FROM audit_log WHERE entity_id = $1 ORDER BY id',
      [name],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['created', 'updated']);
    expect(audit.rows[1]).toMatchObject({ old_value: { steps: ['a'] }, new_value: { steps: ['a', 'b'] } });
  });

  it('never answers random create or update bodies with a 5xx', async () => {
    const name = uniqueName('tpl');
    await app.call('POST', '/api/workflow-templates', { body: { name, steps: ['a'] } });
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        const created = await app.call('POST', '/api/workflow-templates', { body });
        const updated = await app.call('PATCH', `/api/workflow-templates/${name}`, { body });
        expect(created.status).toBeLessThan(500);
        expect(updated.status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});
