import type { TaskServerClient } from './task-server-client';

/**
 * Fire-and-forget adoption telemetry (spec 03): one POST per executed tools/call. A failing
 * telemetry endpoint never changes a tool result; exit waits a bounded time for posts in flight.
 */
export class Telemetry {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly client: TaskServerClient) {}

  record(tool: string, outcome: 'ok' | 'error', durationMs: number): void {
    const post = this.client
      .reply(this.client.api.POST('/api/mcp/telemetry', { body: { tool, outcome, durationMs: Math.round(durationMs) } }))
      .catch(() => undefined);
    this.pending.add(post);
    void post.finally(() => this.pending.delete(post));
  }

  async flush(timeoutMs: number): Promise<void> {
    if (!this.pending.size) return;
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }
}
