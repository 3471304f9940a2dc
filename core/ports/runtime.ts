/**
 * The agent runtime as the core sees it (../shared/runtime-contract.md): one CLI call at a
 * time, answered with the parsed JSON document it printed, and a read-only state directory.
 * Adapters throw RuntimeCallError (core/errors.ts) for every failure kind of the contract.
 */
export interface Runtime {
  /** Runs `RUNTIME_CLI ...args` (no shell) and returns its JSON document. */
  run(args: readonly string[]): Promise<Record<string, unknown>>;
  /** Absolute path of RUNTIME_STATE_DIR (sessions and transcripts); read-only. */
  readonly stateDir: string;
}
