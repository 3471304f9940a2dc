import * as z from 'zod';
import { anyObject, counts } from '../openapi/report-schemas';
import type { Route } from '../route';

const legacyExportSchema = z.object({
  version: z.number().int(),
  exportedAt: z.date(),
  projects: z.array(anyObject),
  tasks: z.array(anyObject),
  workflows: z.array(anyObject),
  auditLog: z.array(anyObject),
  settings: anyObject,
});

const importPreviewSchema = z.object({
  version: z.unknown(),
  projects: z.number().int(),
  tasks: z.number().int(),
  workflows: z.number().int(),
  auditLog: z.number().int(),
  hasSettings: z.boolean(),
  projectNames: z.array(z.string()),
});

const importResultSchema = z.object({
  imported: counts,
  mode: z.string(),
  secretsDropped: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
});

/** Legacy export and import (spec 01). */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/export', handler: 'legacy/export-legacy', response: legacyExportSchema },
  { method: 'POST', path: '/api/import/preview', handler: 'legacy/preview-import', largeBody: true, response: importPreviewSchema },
  { method: 'POST', path: '/api/import', handler: 'legacy/import-legacy', largeBody: true, response: importResultSchema },
];
