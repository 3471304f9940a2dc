import { chatHistory } from '../../core/runtime/chat';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/agent/chat/history?limit&sessionKey */
export const handler = httpHandler(async (event, app) => json(await chatHistory(app.deps, event.queryStringParameters)));
