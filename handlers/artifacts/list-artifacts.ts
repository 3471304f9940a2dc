import { listArtifacts } from '../../core/workflows/artifacts';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/artifacts?workflow_run_id=&artifact_type=&status= */
export const handler = httpHandler(async (event, app) => json(await listArtifacts(app.deps, event.queryStringParameters)));
