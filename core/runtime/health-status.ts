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
    return {
      status: err.failure === 'unavailable' ? 'unavailable' : 'error',
      healthy: false,
      agent_count: 0,
      failure: err.failure,
      reason: err.message,
    };
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
 * Which way this server reaches the runtime's sessions and whether it answers: `gateway` (the
 * released runtime's gateway, checked with one short list call) or `cli+files` (the CLI and the
 * state directory, answering when the CLI's health call did).
 */
async function runtimeAccess(deps: Pick<Deps, 'runtime'>, gateway: GatewayStatus & Record<string, unknown>) {
  const files = deps.runtime.files;
  if (files?.way !== 'gateway') {
    return { way: 'cli+files', healthy: gateway.healthy, status: gateway.healthy ? 'answering' : 'not_answering' };
  }
  try {
    await files.check?.();
    return { way: 'gateway', healthy: true, status: 'answering' };
  } catch (err) {
    if (!(err instanceof RuntimeCallError)) throw err;
    return { way: 'gateway', healthy: false, status: 'not_answering', failure: err.failure, reason: err.message };
  }
}

/**
 * GET /api/health-status with the runtime: the gateway section from the runtime's health call,
 * `runtime_access` (which way sessions are read and whether it answers) and, when the runtime
 * answers at all, the cron check. With no runtime the gateway says `unavailable`
 * and the cron check is left out (there is nothing to check), so the overall status is degraded.
 */
export async function runtimeHealthStatus(deps: Pick<Deps, 'storage' | 'runtime'>) {
  const [gateway, cron] = await Promise.all([gatewayStatus(deps), cronCheck(deps)]);
  const [report, access] = await Promise.all([healthStatus(deps, gateway), runtimeAccess(deps, gateway)]);
  // sessions unreadable through the gateway leave the service degraded even when the CLI answers
  const status = report.status === 'healthy' && !access.healthy ? 'degraded' : report.status;
  const checks = { ...report.checks, runtime_access: access, ...(gateway.healthy ? { cron } : {}) };
  return { ...report, status, runtime_access: access, checks };
}
