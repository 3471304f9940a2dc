import { SecretsUnavailableError } from '../../core/errors';
import { resetConfig } from '../config';

/**
 * Secrets that a deployment keeps out of its template: `<VAR>_SSM` names an SSM parameter (a
 * SecureString, or `/aws/reference/secretsmanager/<secret>` for a Secrets Manager secret) whose
 * value becomes `<VAR>` before the first request is served. Read once per process (a Lambda cold
 * start), then cached; a failed read is retried by the next request, which meanwhile answers 503.
 */
const SECRET_SOURCES = [
  { target: 'DASHBOARD_AUTH_TOKEN', source: 'DASHBOARD_AUTH_TOKEN_SSM' },
  { target: 'DATABASE_URL', source: 'DATABASE_URL_SSM' },
] as const;

export type ParameterReader = (name: string) => Promise<string>;

/** SSM GetParameter with decryption. The SDK is loaded only when a parameter is named (Lambda provides it). */
const ssmParameter: ParameterReader = async (name) => {
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient({});
  try {
    const got = await client.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
    const value = got.Parameter?.Value;
    if (!value) throw new Error('the parameter has no value');
    return value;
  } finally {
    client.destroy();
  }
};

let resolved: Promise<void> | undefined;

export function resolveSecretParameters(env: NodeJS.ProcessEnv = process.env, read: ParameterReader = ssmParameter): Promise<void> {
  // every request asks: once answered (read, or nothing to read), it costs no look at the environment
  if (resolved) return resolved;
  const wanted = SECRET_SOURCES.filter(({ source }) => env[source]);
  if (!wanted.length) return (resolved = Promise.resolve());
  resolved = (async () => {
    for (const { target, source } of wanted) {
      const name = env[source]!;
      try {
        env[target] = await read(name);
      } catch (err) {
        // the parameter's name is not secret; its value never reaches this message
        throw new SecretsUnavailableError(
          `${target} could not be read from SSM parameter ${name}: ${(err as Error).name}: ${(err as Error).message}`,
        );
      }
    }
    resetConfig();
  })().catch((err) => {
    resolved = undefined;
    throw err;
  });
  return resolved;
}

/** For tests: forget what was read, so the next call reads again. */
export function forgetSecretParameters(): void {
  resolved = undefined;
}
