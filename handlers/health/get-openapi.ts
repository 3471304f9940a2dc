import { openApiDocument } from '../openapi/openapi-document';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/openapi.json: the generated OpenAPI 3.1 document. */
export const handler = httpHandler(async () => json(openApiDocument()));
