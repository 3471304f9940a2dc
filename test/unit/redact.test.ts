import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretKey, redactSecrets } from '../../core/secrets/redact';
import { isPasswordSetting, snapshotSettingKeys } from '../../core/settings/catalog';

describe('secrets policy', () => {
  it('matches the spec key pattern with underscore boundaries and word continuation', () => {
    for (const key of [
      'password',
      'db_password',
      'access_token',
      'API_KEY',
      'api-key',
      'apikey',
      'auth_token',
      'client_secret',
      'credential',
      'PASSWD',
      'x-token',
    ])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of ['keyboard', 'monkey', 'tokens', 'passwords', 'secretary', 'name', 'tokenizer', 'credentials'])
      expect(isSecretKey(key), key).toBe(false);
  });

  it('replaces values at any depth, keeping keys and leaving other values alone', () => {
    const input = { name: 'x', db_password: 'hunter2', nested: [{ access_token: { deep: 1 } }, { keep: 'me', apiKey: null }] };
    expect(redactSecrets(input)).toEqual({
      name: 'x',
      db_password: REDACTED,
      nested: [{ access_token: REDACTED }, { keep: 'me', apiKey: REDACTED }],
    });
    expect(input.db_password).toBe('hunter2');
  });

  it('never lets a planted marker under a secret key survive', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('password', 'token', 'secret', 'api_key'), (value, key) => {
        const marker = 'MARKER-7d3e';
        const out = JSON.stringify(redactSecrets({ wrap: [value, { [key]: marker }] }));
        expect(out).not.toContain(marker);
      }),
    );
  });

  it('derives snapshot setting keys from the catalog, with no password-type key', () => {
    const keys = snapshotSettingKeys();
    expect(keys).toContain('theme');
    expect(keys).toContain('SSE_MAX_CLIENTS');
    for (const key of ['DASHBOARD_AUTH_TOKEN', 'POSTGRES_PASSWORD', 'GATEWAY_PASSWORD', 'GATEWAY_TOKEN', 'WEB_MASTER_API_KEY']) {
      expect(keys).not.toContain(key);
      expect(isPasswordSetting(key)).toBe(true);
    }
  });
});
