import { sendChatMessage } from '../../core/runtime/chat';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/agent/chat: forwards the message (with its context prefix) to the runtime. */
export const handler = httpHandler(async (event, app) => json(await sendChatMessage(app.deps, event.body)));
