import { ConfigError, parseMcpConfig } from '../infra/config';
import { LineTransport } from './line-transport';
import { taskServerClient } from './task-server-client';
import { checkToolCall, createToolServer } from './tool-server';

/**
 * `node dist/mcp.js`: the MCP stdio tool server. Stdout carries protocol frames only; the few
 * diagnostics go to stderr and never include the token.
 */
async function main(): Promise<void> {
  let cfg;
  try {
    cfg = parseMcpConfig(process.env);
  } catch (err) {
    process.stderr.write(`mcp tool server cannot start: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const client = taskServerClient({ baseUrl: cfg.taskServerUrl, token: cfg.authToken });
  const { server, telemetry } = createToolServer({ client, mutations: cfg.mcpMutations });
  const transport = new LineTransport(process.stdin, process.stdout, { checkRequest: checkToolCall });
  server.onerror = (err) => process.stderr.write(`mcp: ${err.message}\n`);
  let exiting = false;
  const exit = async () => {
    if (exiting) return;
    exiting = true;
    await telemetry.flush(2_000);
    process.exit(0);
  };
  transport.onclose = () => void exit();
  process.on('SIGTERM', () => void exit());
  process.on('SIGINT', () => void exit());
  await server.connect(transport);
}

void main();
