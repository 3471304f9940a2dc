import { settingsOverview } from '../../core/settings/overview';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/settings/overview (operator): the server, routing, governance policy, runtime health and scheduled jobs in one read. */
export const handler = httpHandler(async (_event, app) =>
  json(
    await settingsOverview(app.deps, {
      version: app.version,
      port: app.config.port,
      startedAt: app.startedAt,
      uptimeSeconds: (Date.now() - app.startedAt.getTime()) / 1000,
      storage: app.storageInfo,
    }),
  ),
);
