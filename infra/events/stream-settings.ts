import { settingByKey } from '../../core/settings/catalog';
import type { Storage } from '../../core/ports';

/** What a stream connection is held to; read from the settings table at each connection. */
export interface StreamSettings {
  maxClients: number;
  heartbeatIntervalMs: number;
  /** Live tails of runtime sessions (GET /api/rt/sessions/:sessionId/tail), counted apart from the event streams. */
  maxSessionTails: number;
}

/** Used when the settings table has no valid row for the key (documented in docs/events.md). */
export const STREAM_SETTING_DEFAULTS: StreamSettings = { maxClients: 100, heartbeatIntervalMs: 30_000, maxSessionTails: 20 };

const keys = {
  maxClients: 'SSE_MAX_CLIENTS',
  heartbeatIntervalMs: 'SSE_HEARTBEAT_INTERVAL',
  maxSessionTails: 'SSE_MAX_SESSION_TAILS',
} as const;

/** A stored value as the catalog types it; numbers saved as text ("200") count too. */
function valid(key: string, value: unknown): number | undefined {
  const candidate = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  const parsed = settingByKey.get(key)?.schema.safeParse(candidate);
  return parsed?.success ? (parsed.data as number) : undefined;
}

/**
 * SSE_MAX_CLIENTS, SSE_HEARTBEAT_INTERVAL and SSE_MAX_SESSION_TAILS from the settings table: the row when present and
 * valid for the catalog's schema, else the default. Without a database, the defaults.
 */
export async function readStreamSettings(storage: Storage): Promise<StreamSettings> {
  if (storage.mode !== 'database') return { ...STREAM_SETTING_DEFAULTS };
  const { rows } = await storage.db.query<{ key: string; value: unknown }>('SELECT key, value FROM settings WHERE key = ANY($1)', [
    Object.values(keys),
  ]);
  const stored = new Map(rows.map((r) => [r.key, r.value]));
  return {
    maxClients: valid(keys.maxClients, stored.get(keys.maxClients)) ?? STREAM_SETTING_DEFAULTS.maxClients,
    heartbeatIntervalMs:
      valid(keys.heartbeatIntervalMs, stored.get(keys.heartbeatIntervalMs)) ?? STREAM_SETTING_DEFAULTS.heartbeatIntervalMs,
    maxSessionTails: valid(keys.maxSessionTails, stored.get(keys.maxSessionTails)) ?? STREAM_SETTING_DEFAULTS.maxSessionTails,
  };
}
