import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { WebhookTransport } from '../../core/ports';

/**
 * Deps.webhooks: POSTs with fetch under a timeout, reading at most what the delivery log keeps of
 * the answer, after checking where the URL resolves: loopback, private, link-local and other
 * non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE=1, at creation and again at each
 * delivery (a name may resolve elsewhere later). The check and the connection resolve separately:
 * a name that changes between them is not caught (documented in docs/api/webhooks.md).
 */
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  nonPublic.addSubnet(net, prefix, 'ipv6');

function isNonPublic(address: string): boolean {
  const family = isIP(address);
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) return isNonPublic(address.slice(7));
  return family === 4 ? nonPublic.check(address, 'ipv4') : family === 6 ? nonPublic.check(address, 'ipv6') : true;
}

const RESPONSE_READ_LIMIT = 4096;

async function readSome(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < RESPONSE_READ_LIMIT) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, RESPONSE_READ_LIMIT).toString('utf8');
}

export function httpWebhookTransport(options: { timeoutMs: number; allowPrivate: boolean }): WebhookTransport {
  const refusedDestination = async (url: string): Promise<string | undefined> => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'must be an http or https URL';
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
    if (options.allowPrivate) return undefined;
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return `host ${host} does not resolve`;
    }
    const blocked = addresses.find(isNonPublic);
    return blocked ? `${host} resolves to ${blocked}, a loopback or private address (WEBHOOK_ALLOW_PRIVATE=1 allows it)` : undefined;
  };
  return {
    refusedDestination,
    async send(request) {
      const refused = await refusedDestination(request.url);
      if (refused) return { ok: false, error: `destination refused: ${refused}` };
      try {
        const res = await fetch(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        return { ok: true, status: res.status, body: await readSome(res) };
      } catch (err) {
        const e = err as Error;
        return {
          ok: false,
          error: e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : `request failed: ${e.message}`,
        };
      }
    },
  };
}
