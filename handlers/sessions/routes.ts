import * as z from 'zod';
import { activeSessionSchema } from '../../core/workflows/sessions';
import { listOf } from '../openapi/report-schemas';
import type { Route } from '../route';

const sessionHeartbeatSchema = z.object({
  session_id: z.string(),
  active: z.literal(true),
  heartbeat_at: z.date(),
  run_ids: z.array(z.string()),
});

/** Agent sessions of workflow runs (spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/sessions/active',
    handler: 'sessions/list-active-sessions',
    response: listOf('sessions', activeSessionSchema),
  },
  { method: 'POST', path: '/api/sessions/:id/heartbeat', handler: 'sessions/record-session-heartbeat', response: sessionHeartbeatSchema },
];
