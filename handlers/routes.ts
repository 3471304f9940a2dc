/**
 * The route table: the one list of every endpoint, each area's rows (handlers/<area>/routes.ts)
 * one after another. It feeds the local runner, GET /api/routes, the OpenAPI document and
 * serverless.yml (esbuild.config.mjs); importing it registers every row for the middy stack
 * (handlers/route-registry.ts). A Lambda bundle imports its own area's rows instead. Pure data:
 * importing it loads no handler.
 */
import { routes as actions } from './actions/routes';
import { routes as agentTokens } from './agent-tokens/routes';
import { routes as agents } from './agents/routes';
import { routes as approvals } from './approvals/routes';
import { routes as artifacts } from './artifacts/routes';
import { routes as audit } from './audit/routes';
import { routes as auth } from './auth/routes';
import { routes as blockers } from './blockers/routes';
import { routes as budgets } from './budgets/routes';
import { routes as chat } from './chat/routes';
import { routes as citationQueue } from './citation-queue/routes';
import { routes as costs } from './costs/routes';
import { routes as cron } from './cron/routes';
import { routes as doctor } from './doctor/routes';
import { routes as events } from './events/routes';
import { routes as health } from './health/routes';
import { routes as history } from './history/routes';
import { routes as inbox } from './inbox/routes';
import { routes as instrumentation } from './instrumentation/routes';
import { routes as legacy } from './legacy/routes';
import { routes as org } from './org/routes';
import { routes as projects } from './projects/routes';
import { routes as restore } from './restore/routes';
import type { Route } from './route';
import { registerRoutes } from './route-registry';
import { routes as rt } from './rt/routes';
import { routes as runtime } from './runtime/routes';
import { routes as sessions } from './sessions/routes';
import { routes as settings } from './settings/routes';
import { routes as snapshots } from './snapshots/routes';
import { routes as spaces } from './spaces/routes';
import { routes as systemScan } from './system-scan/routes';
import { routes as taskOptions } from './task-options/routes';
import { routes as tasks } from './tasks/routes';
import { routes as views } from './views/routes';
import { routes as webhooks } from './webhooks/routes';
import { routes as workflowRouting } from './workflow-routing/routes';
import { routes as workflowRuns } from './workflow-runs/routes';
import { routes as workflowTemplates } from './workflow-templates/routes';

export { routeKeyOf, type HttpMethod, type Route } from './route';

// the order is the table's: serverless.yml lists the functions in it, the OpenAPI document its paths
export const routes: readonly Route[] = [
  // the foundation
  ...health,
  ...auth,
  ...agentTokens,
  ...projects,
  // tasks and what reads them (spec 01)
  ...tasks,
  ...taskOptions,
  ...views,
  ...agents,
  ...doctor,
  ...audit,
  ...history,
  ...spaces,
  ...legacy,
  ...org,
  ...inbox,
  // workflows (spec 03)
  ...workflowTemplates,
  ...workflowRuns,
  ...workflowRouting,
  ...approvals,
  ...artifacts,
  ...blockers,
  ...sessions,
  ...systemScan,
  ...instrumentation,
  // costs, budgets, governed actions, snapshots, restore, settings (spec 02)
  ...costs,
  ...budgets,
  ...actions,
  ...snapshots,
  ...restore,
  ...settings,
  // the agent runtime behind the server (spec 01)
  ...runtime,
  ...cron,
  ...rt,
  ...chat,
  ...citationQueue,
  ...events,
  ...webhooks,
];

registerRoutes(routes);
