import { recordWorkflowGraphEvent } from '../../core/workflows/instrumentation';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/workflow-graph/events */
export const handler = httpHandler(async (event, app) => json(await recordWorkflowGraphEvent(app.deps, event.body)));
