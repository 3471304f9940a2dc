import { changeDependencies } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks/:id/dependencies {add, remove} */
export const handler = httpHandler(async (event, app) => json(await changeDependencies(app.deps, event.pathParameters?.id, event.body)));
