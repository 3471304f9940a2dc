import { dispatcherPass } from '../../core/workflows/dispatcher';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-runs/dispatcher/tick: one tick now, the same code path as the timer; answers its summary. */
export const handler = httpHandler(async (_event, app) => json(await dispatcherPass(app.deps, { source: 'api' })));
