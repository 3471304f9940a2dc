import * as z from 'zod';
import { auditRecordSchema } from '../../core/audit/audit-record';
import { auditCsvQuerySchema } from '../../core/audit/export-audit';
import { auditQuerySchema } from '../../core/audit/list-audit';
import { agentRead } from '../../core/auth/agent-rules';
import type { Route } from '../route';

/** The audit log, and its CSV export (docs/console-api.md). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/audit',
    handler: 'audit/list-audit',
    agent: agentRead,
    query: auditQuerySchema,
    response: z.array(auditRecordSchema),
  },
  { method: 'GET', path: '/api/audit.csv', handler: 'audit/export-audit-csv', query: auditCsvQuerySchema, contentType: 'text/csv' },
];
