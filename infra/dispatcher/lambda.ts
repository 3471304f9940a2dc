import { tick } from '../../core/workflows/dispatcher';
import { appContext } from '../app-context';
import { resolveSecretParameters } from '../secrets/secret-parameters';

/** The scheduled dispatcher function (serverless.yml `dispatcher`, every minute): one tick per invocation. */
export const handler = async () => {
  await resolveSecretParameters();
  const ctx = await appContext();
  return tick(ctx.deps, { source: 'lambda' });
};
