#!/usr/bin/env node
// `npx fleet-task-server mcp` starts the MCP tool server; `npx fleet-task-server serve` the task server.
// Both are the bundles `npm run build` writes; this file only picks one.
const commands = { mcp: '../dist/mcp.js', serve: '../dist/server.js' };
const [command] = process.argv.slice(2);
const target = commands[command];
if (!target) {
  process.stderr.write(`usage: fleet-task-server <${Object.keys(commands).join('|')}>\n`);
  process.exit(2);
}
process.argv.splice(2, 1);
await import(new URL(target, import.meta.url).href);
