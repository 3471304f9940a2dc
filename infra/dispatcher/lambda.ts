import { tick } from '../../core/workflows/dispatcher';
import { appContext } from '../app-context';

/** The scheduled dispatcher function (serverless.yml `dispatcher`, every minute): one tick per invocation. */
export const handler = async () => {
  const ctx = await appContext();
  return tick(ctx.deps, { source: 'lambda' });
};
