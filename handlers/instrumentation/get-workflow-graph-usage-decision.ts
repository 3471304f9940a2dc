import { workflowGraphUsageDecision } from '../../core/workflows/usage-decision';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/workflow-graph/usage-decision?start=&days= */
export const handler = httpHandler(async (event, app) => json(await workflowGraphUsageDecision(app.deps, event.queryStringParameters)));
