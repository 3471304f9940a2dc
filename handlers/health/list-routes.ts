import { routes } from '../routes';
import { httpHandler, json } from '../middleware/http-handler';

const listed = routes.map((r) => ({ method: r.method, path: r.path }));

/** GET /api/routes: every route this server serves, from the route table. */
export const handler = httpHandler(async () => json({ routes: listed, total: listed.length }));
