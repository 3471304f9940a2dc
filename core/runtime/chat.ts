import * as z from 'zod';
import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { RateLimitedError, RuntimeCallError, ValidationError } from '../errors';
import type { Db, Deps, RuntimeDocument } from '../ports';
import { settingByKey } from '../settings/catalog';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { runtimeCalls } from './calls';
import { sessionKeySchema } from './ids';
import { replyText } from './payload';
import { turnUsageOf, type RuntimeUsage } from '../costs/runtime-usage';
import { usagePricing } from '../costs/price-book';
import { costAt, priceAt } from '../costs/pricing';
import { parseSessionKey } from './ids';

/** Used when the settings table holds no valid value (documented in docs/api/agent-runtime.md). */
export const CHAT_DEFAULTS = { MAX_MESSAGE_LENGTH: 10_000, CHAT_RATE_LIMIT: 20 } as const;
export const DEFAULT_CHAT_SESSION_KEY = 'dashboard-agent';
const RATE_WINDOW_MS = 60_000;
/** Hard ceiling whatever MAX_MESSAGE_LENGTH says: the text travels as one CLI argument. */
const ABSOLUTE_MAX_MESSAGE = 100_000;

const chatBody = z.strictObject({
  message: z
    .string({ message: 'is required and must be a string' })
    .refine((m) => m.trim().length > 0, 'must not be empty')
    .pipe(z.string().max(ABSOLUTE_MAX_MESSAGE, `at most ${ABSOLUTE_MAX_MESSAGE} characters`)),
  sessionKey: sessionKeySchema.default(DEFAULT_CHAT_SESSION_KEY),
  context: z
    .object({
      activeView: z.string().max(200).optional(),
      activeSpace: z
        .object({ name: z.string().max(200).optional() })
        .nullable()
        .optional(),
      stats: z
        .object({ projects: z.number().int().min(0).optional(), recentTasks: z.number().int().min(0).optional() })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});
export type ChatContext = NonNullable<z.infer<typeof chatBody>['context']>;

/**
 * The context prefix of spec 01: active view, space, project count and recent task count, each
 * only when given; no prefix when the context names none of them.
 */
export function withContextPrefix(message: string, context: ChatContext | null | undefined): string {
  if (!context) return message;
  const parts: string[] = [];
  if (context.activeView) parts.push(`view: ${context.activeView}`);
  if (context.activeSpace?.name) parts.push(`space: ${context.activeSpace.name}`);
  if (context.stats?.projects !== undefined) parts.push(`projects: ${context.stats.projects}`);
  if (context.stats?.recentTasks !== undefined) parts.push(`recent tasks: ${context.stats.recentTasks}`);
  return parts.length ? `[Dashboard context - ${parts.join('; ')}]\n\n${message}` : message;
}

/** A chat setting from the settings table when present and valid, else its default. */
async function chatSetting(db: Db, key: keyof typeof CHAT_DEFAULTS): Promise<number> {
  const { rows } = await db.query<{ value: unknown }>('SELECT value FROM settings WHERE key = $1', [key]);
  const parsed = settingByKey.get(key)?.schema.safeParse(rows[0]?.value);
  return parsed?.success ? (parsed.data as number) : CHAT_DEFAULTS[key];
}

/** What a chat turn cost, as POST /api/agent/chat answers it (null: the runtime reported no usage). */
export const chatTurnUsageSchema = z.object({
  model_id: z.string().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  cache_write_tokens: z.number().int(),
  /** USD; null when the runtime gave tokens alone and the price table has no price for the model. */
  cost_estimate: z.number().nullable(),
  currency: z.string().nullable(),
  /** runtime: as the runtime priced the turn; table: priced from its tokens by the price table; null: unpriced. */
  cost_source: z.enum(['runtime', 'table']).nullable(),
});
export type ChatTurnUsage = z.infer<typeof chatTurnUsageSchema>;

/**
 * A turn's usage with its cost: the runtime's when it gave one, else the price table's at the
 * turn's instant for its model (and the session's agent's billing), else none (never a guess).
 */
async function pricedTurnUsage(
  deps: Pick<Deps, 'prices'>,
  db: Db,
  usage: RuntimeUsage,
  sessionKey: string,
  at: Date,
): Promise<ChatTurnUsage> {
  const tokens = {
    model_id: usage.model_id,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_tokens: usage.cached_tokens,
    cache_write_tokens: usage.cache_write_tokens,
  };
  if (usage.cost !== null) return { ...tokens, cost_estimate: usage.cost, currency: 'USD', cost_source: 'runtime' };
  const { history } = await usagePricing(deps, db, usage.model_id, parseSessionKey(sessionKey)?.agentId ?? null);
  const priced = costAt(priceAt(history, at), tokens);
  return { ...tokens, cost_estimate: priced, currency: priced === null ? null : 'USD', cost_source: priced === null ? null : 'table' };
}

const chatEvent = (sessionKey: string, role: string) => ({
  name: 'chat:message',
  payload: { sessionKey, role },
  channel: 'events' as const,
});

/**
 * POST /api/agent/chat. Steps:
 * 1. validate the body; 2. MAX_MESSAGE_LENGTH (400) from settings;
 * 3. in one transaction under an advisory lock: count the user messages of the last minute against
 *    CHAT_RATE_LIMIT (429), store the user turn, audit `chat.message`;
 * 4. forward the message, with the context prefix, to the runtime (no transaction held meanwhile);
 * 5. store and audit the reply, or mark the turn failed and pass the runtime failure on (502);
 *    the reply's row keeps the turn's usage and cost when the runtime answered them (the released
 *    runtime's `result.meta.agentMeta.usage`), priced by the table from its tokens when it gave no
 *    cost, and the answer carries it as `usage` (docs/costs.md).
 */
export async function sendChatMessage(deps: Deps, body: unknown) {
  const input = parseInput(chatBody, body ?? {}, 'chat message');
  const db = requireDb(deps.storage);
  const maxLength = await chatSetting(db, 'MAX_MESSAGE_LENGTH');
  if (input.message.length > maxLength) {
    throw new ValidationError(`message is ${input.message.length} characters; the limit is ${maxLength} (MAX_MESSAGE_LENGTH)`, [
      { path: 'message', message: `at most ${maxLength} characters` },
    ]);
  }
  const userTurnId = deps.ids.uuid();
  const now = deps.clock.now();
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('chat_messages.rate_limit'))`);
    const limit = await chatSetting(tx, 'CHAT_RATE_LIMIT');
    const { rows } = await tx.query<{ n: number; oldest: Date | null }>(
      `SELECT count(*)::int AS n, min(created_at) AS oldest FROM chat_messages WHERE role = 'user' AND created_at > $1`,
      [new Date(now.getTime() - RATE_WINDOW_MS)],
    );
    const recent = rows[0]!;
    if (recent.n >= limit) {
      const retryAfter = recent.oldest ? Math.max(1, Math.ceil((recent.oldest.getTime() + RATE_WINDOW_MS - now.getTime()) / 1000)) : 60;
      throw new RateLimitedError(
        `chat rate limit reached: at most ${limit} messages per minute (CHAT_RATE_LIMIT); retry in ${retryAfter} s`,
        retryAfter,
      );
    }
    await tx.query(`INSERT INTO chat_messages (id, session_key, role, content, created_at) VALUES ($1, $2, 'user', $3, $4)`, [
      userTurnId,
      input.sessionKey,
      input.message,
      now,
    ]);
    await recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'chat.message',
      entityType: 'chat_message',
      entityId: userTurnId,
      newValue: { sessionKey: input.sessionKey, role: 'user', length: input.message.length },
      event: chatEvent(input.sessionKey, 'user'),
    });
  });

  let doc: RuntimeDocument;
  try {
    doc = await deps.runtime.run(runtimeCalls.agentMessage(input.sessionKey, withContextPrefix(input.message, input.context)));
  } catch (err) {
    if (err instanceof RuntimeCallError) {
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE chat_messages SET status = 'failed' WHERE id = $1`, [userTurnId]);
        await recordChange(deps, tx, {
          actor: OPERATOR_ACTOR,
          action: 'chat.failed',
          entityType: 'chat_message',
          entityId: userTurnId,
          newValue: { sessionKey: input.sessionKey, role: 'user', status: 'failed', failure: err.failure },
        });
      });
    }
    throw err;
  }
  const reply = replyText(doc) ?? '';
  const replyId = deps.ids.uuid();
  const repliedAt = deps.clock.now();
  const turnUsage = turnUsageOf(doc);
  const usage = await db.transaction(async (tx) => {
    const priced = turnUsage ? await pricedTurnUsage(deps, tx, turnUsage, input.sessionKey, repliedAt) : null;
    await tx.query(
      `INSERT INTO chat_messages (id, session_key, role, content, created_at, model_id, input_tokens, output_tokens, cached_tokens,
                                  cache_write_tokens, cost_estimate, currency, cost_source)
       VALUES ($1, $2, 'assistant', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        replyId,
        input.sessionKey,
        reply,
        repliedAt,
        priced?.model_id ?? null,
        priced?.input_tokens ?? null,
        priced?.output_tokens ?? null,
        priced?.cached_tokens ?? null,
        priced?.cache_write_tokens ?? null,
        priced?.cost_estimate ?? null,
        priced?.currency ?? null,
        priced?.cost_source ?? null,
      ],
    );
    await recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'chat.reply',
      entityType: 'chat_message',
      entityId: replyId,
      newValue: { sessionKey: input.sessionKey, role: 'assistant', length: reply.length, ...(priced ? { usage: priced } : {}) },
      event: chatEvent(input.sessionKey, 'assistant'),
    });
    return priced;
  });
  return { success: true, sessionKey: input.sessionKey, messageId: userTurnId, replyId, reply, usage, timestamp: repliedAt.toISOString() };
}

const historyQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1'))
    .transform((n) => Math.min(n, 500))
    .default(50),
  sessionKey: sessionKeySchema.default(DEFAULT_CHAT_SESSION_KEY),
});

/** GET /api/agent/chat/history?limit (default 50, capped at 500)&sessionKey: the latest turns, oldest first. */
export async function chatHistory(deps: Pick<Deps, 'storage'>, query: unknown) {
  const q = parseQuery(historyQuery, query);
  const db = requireDb(deps.storage);
  const { rows } = await db.query<{ role: string; content: string; status: string; created_at: Date }>(
    `SELECT role, content, status, created_at FROM (
       SELECT role, content, status, created_at, id FROM chat_messages WHERE session_key = $1
        ORDER BY created_at DESC, role DESC LIMIT $2) latest
      ORDER BY created_at, role DESC`,
    [q.sessionKey, q.limit],
  );
  return {
    sessionKey: q.sessionKey,
    history: rows.map((r) => ({ role: r.role, content: r.content, status: r.status, timestamp: r.created_at.toISOString() })),
  };
}
