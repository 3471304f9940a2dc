import { healthStatus, type GatewayStatus } from '../health/health';
import { RuntimeCallError } from '../errors';
import type { Deps } from '../ports';
import { runtimeCalls } from './calls';
import { arrayField, fieldsOf, isRecord } from './payload';
import { lastRunStatus } from './scheduled-jobs';

/** The gateway section from the runtime's health call; any failure is reported as what it was. */
async function gatewayStatus(deps: Pick<Deps, 'runtime'>): Promise<GatewayStatus & Record<string, unknown>> {
  try {
    const doc = fieldsOf(await deps.runtime.run(runtimeCalls.health()));
    const agents = Array.isArray(doc.agents) ? doc.agents : [];
    return {
      status: 'connected',
      healthy: true,
      agent_count: agents.length,
      heartbeat_seconds: typeof doc.heartbeatSeconds === 'number' ? doc.heartbeatSeconds : null,
      default_agent_id: typeof doc.defaultAgentId === 'string' ? doc.defaultAgentId : null,
    };
  } catch (err) {
    if (!(err instanceof RuntimeCallError)) throw err;
    return { status: err.failure === 'unavailable' ? 'unavailable' : 'error', healthy: false, agent_count: 0, failure: err.failure, reason: err.message };
  }
}

/** The optional cron check: how many jobs the scheduler holds and how many failed their last run. */
async function cronCheck(deps: Pick<Deps, 'runtime'>) {
  try {
    const jobs = arrayField(await deps.runtime.run(runtimeCalls.cronList()), 'jobs', 'cron list').filter(isRecord);
    const failing = jobs.filter((j) => lastRunStatus(j) === 'error').length;
    return { healthy: failing === 0, status: failing === 0 ? 'ok' : 'failing_jobs', count: jobs.length, failing };
  } catch (err) {
    if (!(err instanceof RuntimeCallError)) throw err;
    return { healthy: false, status: 'error', count: 0, failing: 0, reason: err.message };
  }
}

/**
 * GET /api/health-status with the runtime: the gateway section from the runtime's health call and,
 * when the runtime answers at all, the cron check. With no runtime the gateway says `unavailable`
 * and the cron check is left out (there is nothing to check), so the overall status is degraded.
 */
export async function runtimeHealthStatus(deps: Pick<Deps, 'storage' | 'runtime'>) {
  const [gateway, cron] = await Promise.all([gatewayStatus(deps), cronCheck(deps)]);
  const report = await healthStatus(deps, gateway);
  return gateway.healthy ? { ...report, checks: { ...report.checks, cron } } : report;
}
