import { RuntimeCallError } from '../../core/errors';
import type { Runtime } from '../../core/ports';

/**
 * Placeholder until the CLI adapter of the runtime-integration issue lands: every call fails
 * as "unavailable", which is also what a missing RUNTIME_CLI executable means.
 */
export function unavailableRuntime(stateDir: string): Runtime {
  return {
    stateDir,
    async run(args) {
      throw new RuntimeCallError(`agent runtime unavailable (runtime ${args.slice(0, 2).join(' ')})`, 'unavailable');
    },
  };
}
