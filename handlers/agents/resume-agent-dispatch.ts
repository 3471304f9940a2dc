import { resumeAgentDispatch } from '../../core/agents/dispatch-controls';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agents/:agent/resume-dispatch {actor?} */
export const handler = httpHandler(async (event, app) =>
  json(await resumeAgentDispatch(app.deps, event.pathParameters?.agent, event.body)),
);
