/**
 * The outgoing side of webhooks as the core sees it: one HTTP POST, and the check that
 * a URL points where a webhook may go. Adapters: infra/webhooks/http-webhook-transport.ts.
 */
export interface WebhookRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** A response (any status), or a failure to get one (refused, timed out, refused destination). */
export type WebhookResponse = { ok: true; status: number; body: string } | { ok: false; error: string };

export interface WebhookTransport {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Why `url` may not receive webhooks (a loopback or private address, unless allowed), or undefined when it may. */
  refusedDestination(url: string): Promise<string | undefined>;
}
