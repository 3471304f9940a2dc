import { readFleetGauges } from '../../core/metrics/fleet-gauges';
import { renderMetrics } from '../../infra/metrics/metrics';
import { httpHandler } from '../middleware/http-handler';

/** GET /api/metrics: Prometheus text format; the fleet gauges are left out while the database is away. */
export const handler = httpHandler(async (_event, app) => {
  const fleet = app.deps.storage.mode === 'database' ? await readFleetGauges(app.deps) : undefined;
  const { contentType, text } = await renderMetrics(fleet, app.database()?.pool);
  return { headers: { 'content-type': contentType, 'cache-control': 'no-store' }, body: text };
});
