import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaFile, schemaText } from '../../scripts/db-schema';
import { useTestApp } from '../support/use-app';

const app = useTestApp();

describe('infra/db/schema.sql', () => {
  it('is the schema a freshly migrated database holds, as this server writes it (`npm run db:schema` rewrites it)', async () => {
    const written = readFileSync(schemaFile, 'utf8');
    const today = await schemaText(app.db);
    expect(today.length).toBeGreaterThan(10_000);
    expect(today, 'infra/db/schema.sql is stale: run npm run db:schema').toBe(written);
  });
});
