import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../infra/db/embedded-postgres';
import { createTemplate, withDatabase } from './template-database';

/** Starts one embedded PostgreSQL for the whole run, in a temporary DATA_DIR. */
export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'task-server-test-'));
  const server = await startEmbeddedPostgres(dataDir);
  const adminUrl = withDatabase(server.url, 'postgres');
  const { template, drop } = await createTemplate(adminUrl);
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  project.provide('pgKind', 'embedded');
  return async () => {
    await drop().catch(() => undefined);
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
