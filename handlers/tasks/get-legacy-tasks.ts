import { readLegacyTasks } from '../../core/legacy/markdown-tasks';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/tasks: the legacy markdown reader (DATA_DIR/tasks.md). */
export const handler = httpHandler(async (_event, app) => json(await readLegacyTasks(app.deps)));
