import { useSignal } from '@preact/signals';
import { ActionOutcome, copyToClipboard, useInPlaceAction } from '../parts/in-place-action';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { invalidate, refetchNow, useQuery } from '../queries';
import {
  createWebhook,
  deleteWebhook,
  deliveriesKey,
  loadDeliveries,
  loadWebhooks,
  sendTest,
  setWebhookActive,
  WEBHOOKS_KEY,
  webhookTopics,
  type CreatedWebhook,
  type Delivery,
  type Webhook,
  type WebhookEvent,
} from '../settings-data';

const ALL_EVENTS = '*';

/**
 * The webhooks: "Add webhook" (a URL and the events it wants, the signing secret shown once), and
 * for each one "Send test", on and off, delete, and its delivery log.
 */
export function WebhookSection({ eventTypes }: { eventTypes: string[] | undefined }) {
  const webhooks = useQuery(WEBHOOKS_KEY, webhookTopics, loadWebhooks);
  const adding = useSignal(false);
  const created = useSignal<CreatedWebhook | undefined>(undefined);
  const list = webhooks.data.value?.webhooks;
  return (
    <section aria-labelledby="webhooks-title" class="settings-section stack">
      <div class="section-head">
        <h2 id="webhooks-title">Webhooks</h2>
        {adding.value || created.value ? null : (
          <button type="button" class="primary" onClick={() => (adding.value = true)}>
            Add webhook
          </button>
        )}
      </div>
      {adding.value ? (
        <AddWebhookForm
          eventTypes={eventTypes}
          onDone={(made) => {
            adding.value = false;
            created.value = made;
          }}
        />
      ) : null}
      {created.value ? <CreatedSecret webhook={created.value} onDone={() => (created.value = undefined)} /> : null}
      <Problem text={webhooks.error.value && `The webhooks could not be read: ${webhooks.error.value}`} />
      {!list ? (
        <p class="muted">Reading the webhooks…</p>
      ) : list.length === 0 ? (
        <p class="muted">No webhook: nothing is sent anywhere when events happen.</p>
      ) : (
        <ul class="card-list" aria-labelledby="webhooks-title">
          {list.map((hook) => (
            <WebhookCard key={hook.id} webhook={hook} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AddWebhookForm({ eventTypes, onDone }: { eventTypes: string[] | undefined; onDone(created: CreatedWebhook | undefined): void }) {
  const adding = useInPlaceAction();
  const { busy, problem } = adding;
  const all = useSignal(false);
  return (
    <form
      class="card stack"
      aria-label="Add webhook"
      onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget as HTMLFormElement);
        const events = (all.value ? [ALL_EVENTS] : form.getAll('events').map(String)) as WebhookEvent[];
        if (events.length === 0) {
          problem.value = 'Choose at least one event.';
          return;
        }
        void adding.run(async () => {
          const made = await createWebhook(String(form.get('url') ?? '').trim(), events);
          refetchNow(WEBHOOKS_KEY);
          onDone(made);
        });
      }}
    >
      <label class="field">
        <span>URL</span>
        <input name="url" type="url" required placeholder="https://hooks.example.com/fleet" />
      </label>
      <fieldset class="check-group">
        <legend>Events</legend>
        {!eventTypes ? (
          <p class="muted">Reading the event types…</p>
        ) : (
          <>
            <label class="check">
              <input type="checkbox" checked={all.value} onChange={(e) => (all.value = (e.currentTarget as HTMLInputElement).checked)} />
              <span>All events</span>
            </label>
            <div class="event-choices">
              {eventTypes
                .filter((t) => t !== ALL_EVENTS)
                .map((type) => (
                  <label key={type} class="check">
                    <input type="checkbox" name="events" value={type} disabled={all.value} />
                    <span>{type}</span>
                  </label>
                ))}
            </div>
          </>
        )}
      </fieldset>
      <Problem text={problem.value} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy.value}>
          Add webhook
        </button>
        <button type="button" onClick={() => onDone(undefined)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The signing secret the server made, shown this once; dropped with "Done". */
function CreatedSecret({ webhook, onDone }: { webhook: CreatedWebhook; onDone(): void }) {
  const copying = useInPlaceAction();
  return (
    <div class="card stack" role="group" aria-labelledby="webhook-secret-title">
      <h3 id="webhook-secret-title">Webhook added</h3>
      {webhook.secret ? (
        <>
          <p>Its signing secret (each delivery's X-Webhook-Signature is an HMAC-SHA256 under it). Copy it now: it is shown this once.</p>
          <code class="secret">{webhook.secret}</code>
        </>
      ) : (
        <p>It signs with the secret you gave.</p>
      )}
      <div class="actions">
        {webhook.secret ? (
          <button type="button" class="primary" onClick={() => void copyToClipboard(copying, webhook.secret!, 'Secret')}>
            Copy secret
          </button>
        ) : null}
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <ActionOutcome action={copying} />
    </div>
  );
}

function testOutcome(d: Delivery): string {
  if (d.status === 'delivered') return `Test delivered: the receiver answered ${d.response_code}.`;
  return `Test failed: ${d.last_error ?? `the receiver answered ${d.response_code}`}.`;
}

function WebhookCard({ webhook }: { webhook: Webhook }) {
  const action = useInPlaceAction();
  const { busy } = action;
  const showLog = useSignal(false);
  const titleId = `webhook-${webhook.id}`;
  const act = (work: () => Promise<string>) => void action.run(work, () => refetchNow(WEBHOOKS_KEY));
  return (
    <li class="setting-card" aria-labelledby={titleId}>
      <h3 id={titleId} class="wrap-anywhere">
        {webhook.url}
      </h3>
      <dl class="facts">
        <div>
          <dt>Events</dt>
          <dd>{webhook.events.includes(ALL_EVENTS) ? 'All events' : webhook.events.join(', ')}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>{!webhook.active ? 'Off' : webhook.failing ? 'On, failing: its last delivery gave up' : 'On'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <LocalTime iso={webhook.created_at} />
          </dd>
        </div>
      </dl>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={busy.value}
          onClick={() =>
            act(async () => {
              const delivery = await sendTest(webhook.id);
              // deliveries publish no event: the log is refreshed here, and opened to show this one
              invalidate(webhookTopics);
              showLog.value = true;
              return testOutcome(delivery);
            })
          }
        >
          Send test
        </button>
        <button
          type="button"
          disabled={busy.value}
          onClick={() =>
            act(async () => {
              await setWebhookActive(webhook.id, !webhook.active);
              return webhook.active ? 'Turned off.' : 'Turned on.';
            })
          }
        >
          {webhook.active ? 'Turn off' : 'Turn on'}
        </button>
        <button
          type="button"
          class="danger"
          disabled={busy.value}
          onClick={() => {
            if (!confirm(`Delete the webhook to ${webhook.url} and its delivery log?`)) return;
            act(async () => {
              await deleteWebhook(webhook.id);
              return 'Deleted.';
            });
          }}
        >
          Delete
        </button>
        <button type="button" aria-expanded={showLog.value} onClick={() => (showLog.value = !showLog.value)}>
          Delivery log
        </button>
      </div>
      <ActionOutcome action={action} />
      {showLog.value ? <DeliveryLog webhook={webhook} /> : null}
    </li>
  );
}

const deliveryStatusWords: Record<Delivery['status'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** The webhook's latest deliveries, newest first, read while shown. */
function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const log = useQuery(deliveriesKey(webhook.id), webhookTopics, () => loadDeliveries(webhook.id));
  const deliveries = log.data.value?.deliveries;
  const captionId = `log-${webhook.id}`;
  return (
    <div class="stack">
      <Problem text={log.error.value && `The delivery log could not be read: ${log.error.value}`} />
      {!deliveries ? (
        <p class="muted">Reading the delivery log…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted">No delivery yet.</p>
      ) : (
        <div class="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
          <table class="log-table">
            <caption id={captionId}>Delivery log</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response code</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Made</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{d.event_type}</td>
                  <td>
                    {deliveryStatusWords[d.status]}
                    {d.last_error && d.status !== 'delivered' ? <span class="muted"> ({d.last_error})</span> : null}
                  </td>
                  <td>{d.attempts}</td>
                  <td>{d.response_code ?? '—'}</td>
                  <td>{d.next_attempt_at && d.status === 'pending' ? <LocalTime iso={d.next_attempt_at} /> : '—'}</td>
                  <td>
                    <LocalTime iso={d.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
