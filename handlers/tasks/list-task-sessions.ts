import { taskSessions } from '../../core/runtime/task-sessions';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/tasks/:id/sessions: session bindings derived from the task's runs; nothing written. */
export const handler = httpHandler(async (event, app) => json(await taskSessions(app.deps, event.pathParameters?.id)));
