import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releasedRuntimeEnv, setFakeMode } from '../fixtures/runtime/fake-runtime-env';
import { useFakeRuntimeApp } from '../support/use-app';

/*
 * POST /api/agent/chat records what a turn cost. The fake replays the released runtime's answer to
 * `agent --session-key … --message … --json` (test/fixtures/runtime/openclaw-2026.9.6/agent_ok.out):
 * result.meta.agentMeta.usage {input 1034, output 56, cacheRead 200, cacheWrite 0, cost {total 0.004002}},
 * model mock-1; agent_ok_tokens_only.out is the same turn without any cost.
 */
const app = useFakeRuntimeApp(releasedRuntimeEnv());
const KEY = 'agent:main:main';

beforeEach(async () => {
  await app.db.query('DELETE FROM chat_messages');
  await app.http('PUT', '/api/costs/prices', { body: { prices: {} } });
});
afterEach(() => {
  delete process.env.FAKE_RUNTIME_REPLAY_AS;
});

async function replyRow(replyId: string) {
  const { rows } = await app.db.query<Record<string, unknown>>(
    `SELECT model_id, input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_estimate, currency, cost_source FROM chat_messages WHERE id = $1`,
    [replyId],
  );
  return rows[0];
}
async function replyAudit(replyId: string) {
  const { rows } = await app.db.query<{ new_value: Record<string, unknown> }>(
    `SELECT new_value FROM audit_log WHERE entity_id = $1 AND action = 'chat.reply'`,
    [replyId],
  );
  return rows.map((r) => r.new_value);
}

describe("a chat turn's cost", () => {
  it("is the runtime's own when its answer carries one: stored on the reply, audited, and answered", async () => {
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'hello plain', sessionKey: KEY } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const usage = {
      model_id: 'mock-1',
      input_tokens: 1234,
      output_tokens: 56,
      cached_tokens: 200,
      cache_write_tokens: 0,
      cost_estimate: 0.004002,
      currency: 'USD',
      cost_source: 'runtime',
    };
    expect(res.body).toMatchObject({ reply: 'Hello from the mock model.', usage });
    expect(await replyRow(res.body.replyId)).toEqual(usage);
    expect(await replyAudit(res.body.replyId)).toEqual([expect.objectContaining({ role: 'assistant', usage })]);
  });

  it("is priced by the table from the turn's tokens when the runtime gave none, at the model's price", async () => {
    process.env.FAKE_RUNTIME_REPLAY_AS = 'agent_ok=agent_ok_tokens_only';
    const priced = await app.http('PUT', '/api/costs/prices', {
      body: { prices: { 'mock-1': { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 } } },
    });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'hello plain', sessionKey: KEY } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // 1034 input at 3, 200 cached at 0.3, 56 output at 15 (per million): what the runtime itself charged
    expect(res.body.usage).toEqual({
      model_id: 'mock-1',
      input_tokens: 1234,
      output_tokens: 56,
      cached_tokens: 200,
      cache_write_tokens: 0,
      cost_estimate: 0.004002,
      currency: 'USD',
      cost_source: 'table',
    });
    expect(await replyRow(res.body.replyId)).toMatchObject({ cost_estimate: 0.004002, cost_source: 'table' });
  });

  it('stays unpriced, never free, when the runtime gave tokens alone and the table has no price for the model', async () => {
    process.env.FAKE_RUNTIME_REPLAY_AS = 'agent_ok=agent_ok_tokens_only';
    const res = await app.http('POST', '/api/agent/chat', { body: { message: 'hello plain', sessionKey: KEY } });
    expect(res.status).toBe(200);
    expect(res.body.usage).toMatchObject({ input_tokens: 1234, output_tokens: 56, cost_estimate: null, currency: null, cost_source: null });
    expect(await replyRow(res.body.replyId)).toMatchObject({ input_tokens: 1234, cost_estimate: null, cost_source: null });
  });

  it("is null with the contract's runtime, whose answer carries no usage", async () => {
    delete process.env.FAKE_RUNTIME_RELEASE;
    try {
      const res = await app.http('POST', '/api/agent/chat', { body: { message: 'hello', sessionKey: KEY } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ reply: 'received: hello', usage: null });
      expect(await replyRow(res.body.replyId)).toMatchObject({ input_tokens: null, cost_estimate: null, cost_source: null });
    } finally {
      process.env.FAKE_RUNTIME_RELEASE = 'openclaw-2026.9.6';
    }
  });

  it('is not recorded for a turn the runtime refused (502), and bad input is a 400 before any turn', async () => {
    setFakeMode('exit', 'agent');
    const refused = await app.http('POST', '/api/agent/chat', { body: { message: 'hello', sessionKey: KEY } });
    expect(refused.status).toBe(502);
    const { rows } = await app.db.query(`SELECT role, status, cost_estimate FROM chat_messages`);
    expect(rows).toEqual([{ role: 'user', status: 'failed', cost_estimate: null }]);
    setFakeMode('ok');
    const bad = await app.http('POST', '/api/agent/chat', { body: { message: 'hello', sessionKey: '-rf' } });
    expect(bad.status).toBe(400);
  });
});
