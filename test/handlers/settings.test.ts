import fc from 'fast-check';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsCatalog } from '../../core/settings/catalog';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

const preferenceKeys = settingsCatalog.filter((s) => s.source === 'config').map((s) => s.key);
const passwordKeys = settingsCatalog.filter((s) => s.type === 'password').map((s) => s.key);

describe('settings', () => {
  it('lists every preference key (null until set) and environment keys only as {type, set}', async () => {
    const res = await app.call('GET', '/api/settings');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.settings).sort()).toEqual([...preferenceKeys].sort());
    expect(Object.values(res.body.settings).every((v) => v === null)).toBe(true);
    for (const key of passwordKeys) expect(res.body.environment[key]).toEqual({ type: 'password', set: false });
    expect(res.body.schema.find((s: { key: string }) => s.key === 'theme')).toMatchObject({ source: 'config', type: 'string' });
  });

  it('updates typed preference values, clears them with null, and audits the change', async () => {
    const res = await app.call('PATCH', '/api/settings', {
      body: { theme: 'dark', fontSizeBase: 15, showClock: false, disabledApps: ['chat'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({ theme: 'dark', fontSizeBase: 15, showClock: false, disabledApps: ['chat'] });
    const cleared = await app.call('PATCH', '/api/settings', { body: { showClock: null } });
    expect(cleared.body.settings.showClock).toBeNull();
    expect((await app.call('GET', '/api/settings')).body.settings.theme).toBe('dark');
    const { rows } = await app.db.query<{ action: string; old_value: Record<string, unknown>; new_value: Record<string, unknown> }>(
      `SELECT action, old_value, new_value FROM audit_log WHERE entity_type = 'settings' ORDER BY id`,
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ action: 'updated', old_value: { theme: null }, new_value: { theme: 'dark' } });
    expect(rows[1]).toMatchObject({ old_value: { showClock: false }, new_value: { showClock: null } });
  });

  it('refuses unknown keys, environment keys, wrong types and an empty body with 400 naming the key, changing nothing', async () => {
    const before = await app.db.query('SELECT key, value FROM settings ORDER BY key');
    const cases: Array<[unknown, RegExp]> = [
      [{ colour: 'red' }, /colour/],
      [{ DASHBOARD_AUTH_TOKEN: 'x' }, /DASHBOARD_AUTH_TOKEN/],
      [{ POSTGRES_PASSWORD: 'x' }, /POSTGRES_PASSWORD/],
      [{ theme: 'pink' }, /theme/],
      [{ fontSizeBase: '12' }, /fontSizeBase/],
      [{ taskbarOpacity: 2 }, /taskbarOpacity/],
      [{ theme: 'dark', CHAT_RATE_LIMIT: -1 }, /CHAT_RATE_LIMIT/],
      [{}, /setting/],
      [[], /settings/],
    ];
    for (const [body, pattern] of cases) {
      const res = await app.call('PATCH', '/api/settings', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(body)).toMatch(pattern);
    }
    expect((await app.db.query('SELECT key, value FROM settings ORDER BY key')).rows).toEqual(before.rows);
  });

  it('never returns a password-type value, only whether it is set', async () => {
    await app.db.query(
      `INSERT INTO settings (key, value, source, type) VALUES ('GATEWAY_TOKEN', '"MARKER-settings-gateway-token"', 'env', 'password')
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    );
    const res = await app.call('GET', '/api/settings');
    expect(res.text).not.toContain('MARKER-');
    expect(res.body.environment.GATEWAY_TOKEN).toEqual({ type: 'password', set: true });
  });

  it('puts what PATCH set into the next snapshot settings section', async () => {
    await app.call('PATCH', '/api/settings', { body: { accentColor: '#ff8800', SSE_MAX_CLIENTS: 12 } });
    const created = await app.call('POST', '/api/snapshots');
    const artifact = JSON.parse(await readFile(path.join(app.ctx.config.snapshotDir, `${created.body.snapshot_id}.json`), 'utf8'));
    expect(artifact.settings).toMatchObject({ accentColor: '#ff8800', SSE_MAX_CLIENTS: 12, theme: 'dark' });
    expect(artifact.settings).not.toHaveProperty('GATEWAY_TOKEN');
  });

  it('answers random PATCH bodies with 200 or 400, never a 5xx', async () => {
    const key = fc.oneof(fc.constantFrom(...settingsCatalog.map((s) => s.key)), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), async (body) => {
        const res = await app.call('PATCH', '/api/settings', { body });
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 40 },
    );
  });
});
