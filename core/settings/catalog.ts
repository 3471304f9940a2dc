import * as z from 'zod';

/**
 * The settings schema. `source: 'config'` keys are operator preferences (the only ones snapshots
 * carry, spec 02); `source: 'env'` keys come from the environment and never leave the server;
 * `type: 'password'` values are never returned, exported or snapshotted, not even as a marker.
 * Snapshot and export code derive their key lists from this table at run time, so a key added
 * here cannot leak by being forgotten elsewhere.
 */
export type SettingType = 'string' | 'number' | 'boolean' | 'json' | 'password';

export interface SettingDefinition {
  key: string;
  source: 'config' | 'env';
  type: SettingType;
  schema: z.ZodType;
  description: string;
}

const bool = z.boolean();
const positiveInt = z.number().int().positive();
const stringList = z.array(z.string().max(200)).max(200);

export const settingsCatalog: readonly SettingDefinition[] = [
  { key: 'theme', source: 'config', type: 'string', schema: z.enum(['light', 'dark', 'system']), description: 'colour theme' },
  { key: 'accentColor', source: 'config', type: 'string', schema: z.string().max(40), description: 'accent colour' },
  { key: 'wallpaper', source: 'config', type: 'string', schema: z.string().max(2000), description: 'desktop wallpaper' },
  { key: 'windowSnap', source: 'config', type: 'boolean', schema: bool, description: 'snap windows to edges' },
  { key: 'rememberWindowPositions', source: 'config', type: 'boolean', schema: bool, description: 'restore window positions' },
  { key: 'fontSizeBase', source: 'config', type: 'number', schema: z.number().min(8).max(32), description: 'base font size (px)' },
  { key: 'showClock', source: 'config', type: 'boolean', schema: bool, description: 'show the taskbar clock' },
  { key: 'clock24h', source: 'config', type: 'boolean', schema: bool, description: '24-hour clock' },
  { key: 'showWidgets', source: 'config', type: 'boolean', schema: bool, description: 'show desktop widgets' },
  { key: 'taskbarOpacity', source: 'config', type: 'number', schema: z.number().min(0).max(1), description: 'taskbar opacity 0..1' },
  { key: 'disabledApps', source: 'config', type: 'json', schema: stringList, description: 'apps hidden from the shell' },
  { key: 'quickLaunchApps', source: 'config', type: 'json', schema: stringList, description: 'apps pinned to quick launch' },
  { key: 'CHAT_RATE_LIMIT', source: 'config', type: 'number', schema: positiveInt, description: 'chat messages per minute' },
  { key: 'MAX_MESSAGE_LENGTH', source: 'config', type: 'number', schema: positiveInt, description: 'longest chat message (characters)' },
  { key: 'SSE_MAX_CLIENTS', source: 'config', type: 'number', schema: positiveInt, description: 'concurrent stream clients' },
  {
    key: 'SSE_MAX_SESSION_TAILS',
    source: 'config',
    type: 'number',
    schema: positiveInt,
    description: 'concurrent live tails of runtime sessions',
  },
  {
    key: 'API_LOG_LEVEL',
    source: 'config',
    type: 'string',
    schema: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']),
    description: 'API log level',
  },
  { key: 'SSE_HEARTBEAT_INTERVAL', source: 'config', type: 'number', schema: positiveInt, description: 'stream heartbeat interval (ms)' },
  {
    key: 'DISPATCH_MAX_IN_FLIGHT',
    source: 'config',
    type: 'number',
    schema: positiveInt,
    description: 'live runs the whole fleet may hold at once (cleared: the DISPATCH_MAX_IN_FLIGHT variable, else no fleet cap)',
  },
  { key: 'MESSAGE_PAGINATION_LIMIT', source: 'config', type: 'number', schema: positiveInt, description: 'chat history page size' },
  { key: 'DASHBOARD_AUTH_TOKEN', source: 'env', type: 'password', schema: z.string(), description: 'API bearer token' },
  { key: 'POSTGRES_PASSWORD', source: 'env', type: 'password', schema: z.string(), description: 'database password' },
  { key: 'GATEWAY_PASSWORD', source: 'env', type: 'password', schema: z.string(), description: 'agent runtime gateway password' },
  { key: 'GATEWAY_TOKEN', source: 'env', type: 'password', schema: z.string(), description: 'agent runtime gateway token' },
  { key: 'WEB_MASTER_API_KEY', source: 'env', type: 'password', schema: z.string(), description: 'web-master API key' },
];

export const settingByKey = new Map(settingsCatalog.map((s) => [s.key, s]));

/** Keys a snapshot may carry: configuration-source, never password-type. */
export function snapshotSettingKeys(): string[] {
  return settingsCatalog.filter((s) => s.source === 'config' && s.type !== 'password').map((s) => s.key);
}

export function isPasswordSetting(key: string): boolean {
  return settingByKey.get(key)?.type === 'password';
}
