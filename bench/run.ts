export {};

/** `npm run bench`: every scenario in turn; each prints its figures with a same-run baseline. */
const scenarios = ['./http-endpoints', './stream-fanout', './snapshot-restore', './replay-transcript', './tasks-endpoints', './costs-budgets', './dispatcher-tick', './claims-concurrent'];

console.log(`task-server benchmarks (node ${process.version}); ratio = ours / baseline`);
for (const scenario of scenarios) {
  const mod = (await import(scenario)) as { run(): Promise<void> };
  await mod.run();
}
process.exit(0);
