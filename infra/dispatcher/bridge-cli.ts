/**
 * `node dist/bridge.js --agent ID`: the agent bridge heartbeat output of spec 03, for an agent's
 * heartbeat script. Reads GET /api/agents/:agent/bridge from TASK_SERVER_URL with DASHBOARD_AUTH_TOKEN
 * and prints its JSON on one line. Exit 0 with the output; 1 (and {state: "error", error} on stdout)
 * when the task server cannot answer; 2 on bad usage. The token is never printed.
 */
const USAGE = 'usage: node dist/bridge.js --agent AGENT_ID';
const TIMEOUT_MS = 10_000;

function agentArg(argv: string[]): string | undefined {
  const i = argv.indexOf('--agent');
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith('--agent='))?.slice('--agent='.length);
}

async function main(): Promise<number> {
  const agent = agentArg(process.argv.slice(2));
  if (!agent || agent.startsWith('-')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const base = (process.env.TASK_SERVER_URL || 'http://127.0.0.1:3876').replace(/\/+$/, '');
  const token = process.env.DASHBOARD_AUTH_TOKEN;
  const fail = (error: string) => {
    process.stdout.write(`${JSON.stringify({ state: 'error', agent, error })}\n`);
    return 1;
  };
  try {
    const res = await fetch(`${base}/api/agents/${encodeURIComponent(agent)}/bridge`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
    if (!res.ok || !body) return fail(`task server answered ${res.status}${body?.error ? `: ${body.error}` : ''}`);
    process.stdout.write(`${JSON.stringify(body)}\n`);
    return 0;
  } catch (err) {
    return fail(`task server unreachable at ${base}: ${(err as Error).message}`);
  }
}

main().then((code) => process.exit(code));
