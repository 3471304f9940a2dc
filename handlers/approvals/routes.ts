import * as z from 'zod';
import {
  approvalAndRunSchema,
  approvalSchema,
  decideApprovalSchema,
  escalateApprovalSchema,
  listApprovalsQuerySchema,
  pendingApprovalsQuerySchema,
} from '../../core/workflows/approvals';
import { listOf } from '../openapi/report-schemas';
import type { Route } from '../route';

/** Approvals (spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/approvals',
    handler: 'approvals/list-approvals',
    query: listApprovalsQuerySchema,
    response: listOf('approvals', approvalSchema),
  },
  {
    method: 'GET',
    path: '/api/approvals/pending',
    handler: 'approvals/list-pending-approvals',
    query: pendingApprovalsQuerySchema,
    response: z.object({ approvals: z.array(approvalSchema) }),
  },
  {
    method: 'PATCH',
    path: '/api/approvals/:id',
    handler: 'approvals/decide-approval',
    body: decideApprovalSchema,
    response: approvalAndRunSchema,
  },
  {
    method: 'POST',
    path: '/api/approvals/:id/escalate',
    handler: 'approvals/escalate-approval',
    body: escalateApprovalSchema,
    response: z.object({ approval: approvalSchema }),
  },
];
