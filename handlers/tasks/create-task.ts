import { isLegacyMarkdownBody, writeLegacyTasks } from '../../core/legacy/markdown-tasks';
import { createTask } from '../../core/tasks/commands';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/tasks: {content} is the legacy markdown writer (200), anything else creates a task (201). */
export const handler = httpHandler(async (event, app) =>
  isLegacyMarkdownBody(event.body)
    ? json(200, await writeLegacyTasks(app.deps, event.body))
    : json(201, await createTask(app.deps, event.body)),
);
