import { createRun } from '../../core/workflows/run-create';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs (Idempotency-Key header or body idempotency_key: a repeat answers 200 with duplicate: true) */
export const handler = httpHandler(async (event, app) => {
  const run = await createRun(app.deps, event.body, { idempotencyKey: event.headers?.['idempotency-key'] });
  return json(run.duplicate ? 200 : 201, run);
});
