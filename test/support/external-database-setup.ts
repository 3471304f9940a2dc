import type { TestProject } from 'vitest/node';
import { createTemplate } from './template-database';

/** Runs the database tests on the PostgreSQL of TEST_DATABASE_URL too (CI: the machine's PostgreSQL 15). */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const { template, drop } = await createTemplate(adminUrl);
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  project.provide('pgKind', 'external');
  return async () => {
    await drop().catch(() => undefined);
  };
}
