import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../core/ports';
import { listRuntimeSessions } from '../core/runtime/session-reader';
import { sessionEvents } from '../core/runtime/session-events';
import { gatewaySessions } from '../infra/runtime/gateway-sessions';
import { medianMs, report } from './support';

/**
 * The session reader through the released runtime's gateway (docs/adr/0010-reaching-the-released-runtime.md),
 * against a bare HTTP server in this process that answers as the gateway does: a session list of
 * BENCH_GATEWAY_SESSIONS rows (default 100, one page) and a history of BENCH_GATEWAY_MESSAGES display
 * messages (default 3,000: user, assistant with usage and a tool call, tool result). Figures: median ms
 * of the session list and of a first page of 500 events (which reads the list, to find the session's
 * key, then the whole history). Baseline: a bare fetch and JSON.parse of the same answers, the floor
 * for anything that reads them.
 */
const sessionCount = Number(process.env.BENCH_GATEWAY_SESSIONS ?? 100);
const messageCount = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 3_000);
const TOKEN = 'bench-gateway-token';

function history(): unknown[] {
  const messages: unknown[] = [];
  for (let i = 0; messages.length < messageCount; i++) {
    const meta = (n: number) => ({ id: `m-${i}-${n}`, seq: messages.length + 1, runId: `run-${i}` });
    messages.push({
      role: 'user',
      content: `request ${i}: ${'lorem ipsum '.repeat(20)}`,
      timestamp: 1795800000000 + i * 1000,
      __openclaw: meta(0),
    });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'working on it' },
        { type: 'toolCall', id: `c${i}`, name: 'exec', arguments: { command: 'ls' } },
      ],
      provider: 'mock',
      model: 'mock-1',
      usage: {
        input: 1000,
        output: 50,
        totalTokens: 1050,
        cacheRead: 0,
        cacheWrite: 0,
        cost: { input: 0.001, output: 0.0001, cacheRead: 0, cacheWrite: 0, total: 0.0011 },
      },
      stopReason: 'toolUse',
      timestamp: 1795800000000 + i * 1000 + 1,
      __openclaw: meta(1),
    });
    messages.push({
      role: 'toolResult',
      toolCallId: `c${i}`,
      toolName: 'exec',
      content: [{ type: 'text', text: 'file\n'.repeat(40) }],
      isError: false,
      timestamp: 1795800000000 + i * 1000 + 2,
      __openclaw: meta(2),
    });
  }
  return messages.slice(0, messageCount);
}

export async function run(): Promise<void> {
  const sessions = Array.from({ length: sessionCount }, (_, i) => ({
    key: `agent:main:s${i}`,
    sessionId: `session-${i}`,
    agentId: 'main',
    kind: 'direct',
    channel: 'unknown',
    status: 'done',
    updatedAt: 1795800000000 - i,
  }));
  const listBody = JSON.stringify({
    ok: true,
    result: { content: [], details: { count: sessions.length, sessions, hasMore: false, limitApplied: 100 } },
  });
  const messages = history();
  const historyBody = JSON.stringify({ sessionKey: 'agent:main:s0', items: messages, messages, hasMore: false });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = req.url === '/tools/invoke' ? listBody : historyBody;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const files = gatewaySessions({ url, token: TOKEN, timeoutMs: 30_000, replayMaxBytes: 20 * 1024 * 1024 });
    const runtime: Runtime = { stateDir: '/nonexistent', run: async () => ({}), files };
    const deps = { runtime, clock: { now: () => new Date() } };
    const bare = (path: string, method: string) => async () =>
      JSON.parse(await (await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } })).text()) as unknown;
    const bareList = await medianMs(bare('/tools/invoke', 'POST'));
    const bareHistory = await medianMs(bare('/sessions/agent%3Amain%3As0/history', 'GET'));
    console.log(
      `session reader through a gateway: ${sessionCount} sessions (${(listBody.length / 1024).toFixed(0)} KB), a history of ${messageCount} messages (${(historyBody.length / 1024 / 1024).toFixed(1)} MB)`,
    );
    report('gateway session list', await medianMs(() => listRuntimeSessions(deps, { agent: 'main' })), bareList, 'µs');
    report(
      'gateway events, first page (limit 500)',
      await medianMs(() => sessionEvents(deps, 'session-0', { agent: 'main', limit: '500' })),
      bareList + bareHistory,
      'µs',
      'baseline: list + history fetched and parsed',
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
