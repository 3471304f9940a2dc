import { runWebhookDeliveries } from '../../core/webhooks/delivery';
import { dispatcherPass } from '../../core/workflows/dispatcher';
import { appContext } from '../app-context';
import { resolveSecretParameters } from '../secrets/secret-parameters';

/**
 * The scheduled dispatcher function (serverless.yml `dispatcher`, every minute): one dispatcher
 * pass (a tick, then the audit search fold) and one webhook delivery pass per
 * invocation; a failed delivery pass never hides the tick.
 */
export const handler = async () => {
  await resolveSecretParameters();
  const ctx = await appContext();
  const summary = await dispatcherPass(ctx.deps, { source: 'lambda' });
  const webhooks = await runWebhookDeliveries(ctx.deps).catch((err: Error) => ({ error: err.message }));
  return { ...summary, webhooks };
};
