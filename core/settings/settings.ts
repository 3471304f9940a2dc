import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ValidationError, type ValidationIssue } from '../errors';
import type { Db, Deps } from '../ports';
import { redactSecrets } from '../secrets/redact';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { settingByKey, settingsCatalog, snapshotSettingKeys } from './catalog';

/**
 * GET /api/settings answer: preference values (null when never set), and for environment-sourced
 * keys only whether they are set; password-type values never leave the server.
 */
export interface SettingsView {
  settings: Record<string, unknown>;
  environment: Record<string, { type: string; set: boolean }>;
  schema: Array<{ key: string; source: string; type: string; description: string }>;
  timestamp: string;
}

/** Environment-sourced keys known to be set by the process (the handler passes what its config holds). */
export interface EnvironmentFacts {
  setKeys?: readonly string[];
}

/** What the process configuration says about environment keys (DASHBOARD_AUTH_TOKEN is the one it reads). */
export function environmentFacts(config: { authToken?: string }): EnvironmentFacts {
  return { setKeys: config.authToken ? ['DASHBOARD_AUTH_TOKEN'] : [] };
}

async function storedSettings(db: Db): Promise<Map<string, unknown>> {
  const { rows } = await db.query<{ key: string; value: unknown }>('SELECT key, value FROM settings');
  return new Map(rows.map((r) => [r.key, r.value]));
}

function view(stored: Map<string, unknown>, env: EnvironmentFacts, now: Date): SettingsView {
  const settings: Record<string, unknown> = {};
  const environment: SettingsView['environment'] = {};
  for (const def of settingsCatalog) {
    if (def.source === 'config' && def.type !== 'password') {
      settings[def.key] = redactSecrets(stored.get(def.key) ?? null);
    } else {
      const value = stored.get(def.key);
      environment[def.key] = { type: def.type, set: (value !== undefined && value !== null) || !!env.setKeys?.includes(def.key) };
    }
  }
  const schema = settingsCatalog.map(({ key, source, type, description }) => ({ key, source, type, description }));
  return { settings, environment, schema, timestamp: now.toISOString() };
}

export async function getSettings(deps: Deps, env: EnvironmentFacts = {}): Promise<SettingsView> {
  const db = requireDb(deps.storage);
  return view(await storedSettings(db), env, deps.clock.now());
}

/** Every value a PATCH may carry: one entry per preference key, null to clear it. */
function patchIssues(patch: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const def = settingByKey.get(key);
    if (!def) issues.push({ path: key, message: 'unknown setting' });
    else if (def.source !== 'config' || def.type === 'password') {
      issues.push({ path: key, message: 'comes from the environment and cannot be changed here' });
    } else if (value !== null) {
      const parsed = def.schema.safeParse(value);
      if (!parsed.success) issues.push({ path: key, message: parsed.error.issues.map((i) => i.message).join('; ') });
    }
  }
  return issues;
}

const patchSchema = z.record(z.string(), z.unknown()).refine((p) => Object.keys(p).length > 0, 'name at least one setting');

/**
 * PATCH /api/settings: validate every key against the catalog, then in one transaction write the
 * new values (null clears a key), audit `updated` with the before and after of the changed keys.
 */
export async function updateSettings(deps: Deps, body: unknown, env: EnvironmentFacts = {}, actor = OPERATOR_ACTOR): Promise<SettingsView> {
  const patch = parseInput(patchSchema, body ?? {}, 'settings');
  const issues = patchIssues(patch);
  if (issues.length) throw new ValidationError(`invalid settings: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  await db.transaction(async (tx) => {
    const before = await storedSettings(tx);
    const oldValue: Record<string, unknown> = {};
    const newValue: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(patch)) {
      const def = settingByKey.get(key)!;
      oldValue[key] = before.get(key) ?? null;
      newValue[key] = value;
      if (value === null) {
        await tx.query('DELETE FROM settings WHERE key = $1', [key]);
      } else {
        await tx.query(
          `INSERT INTO settings (key, value, source, type, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, source = EXCLUDED.source, type = EXCLUDED.type, updated_at = EXCLUDED.updated_at`,
          [key, JSON.stringify(value), def.source, def.type, now],
        );
      }
    }
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'settings',
      entityId: 'settings',
      oldValue: redactSecrets(oldValue),
      newValue: redactSecrets(newValue),
      event: { name: 'settings:changed', payload: { keys: Object.keys(patch) }, channel: 'events' },
    });
  });
  return view(await storedSettings(db), env, now);
}

/**
 * The settings section of a snapshot (spec 02 secrets policy 1): only configuration-source,
 * non-password keys, the list derived from the catalog at run time; values redacted recursively.
 */
export async function snapshotSettings(db: Db): Promise<Record<string, unknown>> {
  const keys = snapshotSettingKeys();
  const { rows } = await db.query<{ key: string; value: unknown }>(
    'SELECT key, value FROM settings WHERE key = ANY($1) AND value IS NOT NULL ORDER BY key',
    [keys],
  );
  return Object.fromEntries(rows.map((r) => [r.key, redactSecrets(r.value)]));
}
