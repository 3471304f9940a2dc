export {};

/**
 * `npm run bench`: every scenario in turn; each prints its figures with a same-run baseline.
 * `npm run bench -- dispatcher-tick claims-concurrent` runs only the scenarios named.
 */
const allScenarios = [
  './http-endpoints',
  './stream-fanout',
  './snapshot-restore',
  './replay-transcript',
  './replay-gateway',
  './session-tail',
  './tasks-endpoints',
  './costs-budgets',
  './dispatcher-tick',
  './runtime-costs',
  './claims-concurrent',
  './outbox-commits',
  './task-move',
  './console-routes',
  './memory-soak',
  './console-board',
  './console-transcript',
  './console-costs',
  './console-audit',
];
const wanted = process.argv.slice(2).map((name) => `./${name.replace(/^\.\//, '').replace(/\.ts$/, '')}`);
const unknown = wanted.filter((name) => !allScenarios.includes(name));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; known: ${allScenarios.map((s) => s.slice(2)).join(', ')}`);
  process.exit(2);
}
const scenarios = wanted.length > 0 ? wanted : allScenarios;

console.log(`task-server benchmarks (node ${process.version}); ratio = ours / baseline`);
for (const scenario of scenarios) {
  const mod = (await import(scenario)) as { run(): Promise<void> };
  await mod.run();
}
process.exit(0);
