import { rebuildUsageRollup } from '../../core/costs/usage-rollup';
import { httpHandler, json } from '../middleware/http-handler';

/** POST /api/costs/rebuild {actor?} (operator): the usage rollup recomputed from the runs. */
export const handler = httpHandler(async (event, app) => json(await rebuildUsageRollup(app.deps, event.body)));
