import * as z from 'zod';
import { chatTurnUsageSchema } from '../../core/runtime/chat';
import type { Route } from '../route';

const chatReplySchema = z.object({
  success: z.literal(true),
  sessionKey: z.string(),
  messageId: z.string(),
  replyId: z.string(),
  reply: z.string(),
  usage: chatTurnUsageSchema.nullable(),
  timestamp: z.string(),
});

const chatHistorySchema = z.object({
  sessionKey: z.string(),
  history: z.array(z.object({ role: z.string(), content: z.string(), status: z.string(), timestamp: z.string() })),
});

/** Chat with an agent (spec 01). */
export const routes: readonly Route[] = [
  { method: 'POST', path: '/api/agent/chat', handler: 'chat/send-chat-message', response: chatReplySchema },
  { method: 'GET', path: '/api/agent/chat/history', handler: 'chat/get-chat-history', response: chatHistorySchema },
];
