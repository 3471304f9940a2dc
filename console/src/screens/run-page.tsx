import { useSignal } from '@preact/signals';
import { useQuery } from '../queries';
import { decideApproval, loadRunPage, runTopics, updateArtifactMetadata, type RunPageData } from '../runs-data';
import { LocalTime } from '../parts/local-time';
import { Problem } from '../parts/problem';
import { RunActionButtons, costText, durationText } from '../parts/run-actions';
import { Transcript } from '../parts/transcript';

/**
 * One run (GET /api/workflow-runs/:id/page, one read): its buttons, its timeline of status changes
 * and steps with their durations, approvals decided in place, artifacts, usage and cost, the
 * receipts of its governed actions, its blockers, and its session's transcript.
 */
export function RunPage({ id = '' }: { path: string; id?: string }) {
  const page = useQuery(`run-page:${id}`, runTopics, () => loadRunPage(id));
  const notice = useSignal<string | undefined>(undefined);
  const problem = useSignal<string | undefined>(undefined);
  const p = page.data.value;
  const changed = (message?: string) => {
    notice.value = message;
    page.refetch();
  };

  if (!p)
    return (
      <section aria-labelledby="screen-title" class="screen">
        <h1 id="screen-title">Run {id.slice(0, 8)}</h1>
        {page.error.value ? (
          <p role="alert" class="problem">
            The run could not be read: {page.error.value}
          </p>
        ) : (
          <p class="muted">Reading the run…</p>
        )}
      </section>
    );

  const run = p.run;
  return (
    <section aria-labelledby="screen-title" class="screen run-page">
      <h1 id="screen-title">
        Run {run.id.slice(0, 8)} · {run.workflow_type}
      </h1>
      <p class="muted run-summary">
        <span class={`run-status status-${run.status}`}>{run.status.replace(/_/g, ' ')}</span>
        {run.task_id ? (
          <>
            {' '}
            · task <a href={`/tasks/${run.task_id}`}>{run.task_title ?? run.task_id}</a>
          </>
        ) : null}
        {run.owner_agent_id || run.target_agent_id ? ` · agent ${run.owner_agent_id ?? run.target_agent_id}` : ''} · attempt{' '}
        {run.retry_count + 1} · created <LocalTime iso={run.created_at} />
        <span class="visually-hidden"> · run id {run.id}</span>
      </p>
      {run.last_error ? <p class="problem">Last error: {run.last_error}</p> : null}
      {notice.value ? (
        <p role="status" class="notice">
          {notice.value}
        </p>
      ) : null}
      <Problem text={problem.value} />
      <RunActionButtons run={{ id: run.id, actions: p.actions }} onDone={changed} onProblem={(m) => (problem.value = m)} />

      <Timeline page={p} />
      <Approvals approvals={p.approvals} onDecided={changed} />
      <Artifacts artifacts={p.artifacts} onSaved={changed} />
      <Usage usage={p.usage} />
      <Receipts receipts={p.receipts} />
      <section aria-labelledby="blockers-title" class="card stack">
        <h2 id="blockers-title">Blockers</h2>
        {p.blockers.length === 0 ? (
          <p class="muted">Nothing blocks this run.</p>
        ) : (
          <ul class="plain-list">
            {p.blockers.map((b) => (
              <li key={`${b.sourceType}:${b.id}`}>
                <strong>{b.blockerType.replace(/_/g, ' ')}</strong> ({b.severity}, {b.sourceType === 'task' ? 'its task' : 'this run'}):{' '}
                {b.description}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="transcript-title" class="card stack">
        <h2 id="transcript-title">Transcript</h2>
        {p.session.session_id ? (
          <Transcript sessionId={p.session.session_id} live={p.session.live} />
        ) : (
          <p class="muted">
            {p.session.key ? `The runtime holds no transcript for session ${p.session.key}.` : 'No session has claimed this run yet.'}
          </p>
        )}
        {p.session.earlier_keys.length > 0 ? <p class="muted">Earlier sessions: {p.session.earlier_keys.join(', ')}</p> : null}
      </section>
    </section>
  );
}

/** Status changes and steps, each a dot on a line, with how long it lasted. */
function Timeline({ page }: { page: RunPageData }) {
  return (
    <section aria-labelledby="timeline-title" class="card stack">
      <h2 id="timeline-title">Timeline</h2>
      <h3>Status changes</h3>
      {page.timeline.length === 0 ? <p class="muted">No status change recorded.</p> : null}
      <ol class="timeline">
        {page.timeline.map((t, i) => (
          <li key={`${t.at}:${i}`} class={`status-${t.status}`}>
            <strong>{t.status.replace(/_/g, ' ')}</strong> <LocalTime iso={t.at} />
            {t.duration_ms !== null ? (
              <span class="muted">
                {' '}
                · {i === page.timeline.length - 1 ? 'for ' : ''}
                {durationText(t.duration_ms)}
              </span>
            ) : null}
            <span class="muted"> · by {t.actor}</span>
          </li>
        ))}
      </ol>
      <h3>Steps</h3>
      {page.steps.length === 0 ? <p class="muted">The run’s template has no steps.</p> : null}
      <ol class="timeline">
        {page.steps.map((s) => (
          <li key={s.step_order} class={`status-${s.status}`}>
            <strong>{s.step_name}</strong> <span class="muted">{s.status.replace(/_/g, ' ')}</span>
            {s.started_at ? (
              <>
                {' '}
                · started <LocalTime iso={s.started_at} />
              </>
            ) : null}
            {s.duration_ms !== null ? <span class="muted"> · {durationText(s.duration_ms)}</span> : null}
            {s.error_message ? <p class="problem">{s.error_message}</p> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Approvals({ approvals, onDecided }: { approvals: RunPageData['approvals']; onDecided(message: string): void }) {
  return (
    <section aria-labelledby="approvals-title" class="card stack">
      <h2 id="approvals-title">Approvals</h2>
      {approvals.length === 0 ? <p class="muted">No approval was asked for.</p> : null}
      <ul class="plain-list">
        {approvals.map((a) => (
          <ApprovalItem key={a.id} approval={a} onDecided={onDecided} />
        ))}
      </ul>
    </section>
  );
}

function ApprovalItem({ approval: a, onDecided }: { approval: RunPageData['approvals'][number]; onDecided(message: string): void }) {
  const note = useSignal('');
  const busy = useSignal(false);
  const problem = useSignal<string | undefined>(undefined);
  const decide = async (decision: 'approved' | 'rejected') => {
    busy.value = true;
    problem.value = undefined;
    try {
      await decideApproval(a.id, decision, note.value.trim() || undefined);
      onDecided(`Approval of ${a.step_name} ${decision}.`);
    } catch (err) {
      problem.value = (err as Error).message;
    } finally {
      busy.value = false;
    }
  };
  return (
    <li class="approval" aria-label={`Approval of ${a.step_name}`}>
      <p>
        <strong>{a.step_name}</strong> · {a.status} · {a.approval_type} · asked <LocalTime iso={a.created_at} />
        {a.requested_by ? ` by ${a.requested_by}` : ''}
        {a.decided_by ? ` · decided by ${a.decided_by}` : ''}
        {a.note ? ` · “${a.note}”` : ''}
      </p>
      {a.status === 'pending' ? (
        <div class="inline-form">
          <label class="field inline">
            <span>Note (optional)</span>
            <input type="text" value={note.value} onInput={(e) => (note.value = (e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="button" class="primary" disabled={busy.value} onClick={() => void decide('approved')}>
            Approve
          </button>
          <button type="button" class="danger" disabled={busy.value} onClick={() => void decide('rejected')}>
            Reject
          </button>
        </div>
      ) : null}
      <Problem text={problem.value} />
    </li>
  );
}

const httpLink = (uri: string | null) => (uri && /^https?:\/\//i.test(uri) ? uri : undefined);

function Artifacts({ artifacts, onSaved }: { artifacts: RunPageData['artifacts']; onSaved(message: string): void }) {
  return (
    <section aria-labelledby="artifacts-title" class="card stack">
      <h2 id="artifacts-title">Artifacts</h2>
      {artifacts.length === 0 ? <p class="muted">No artifacts.</p> : null}
      <ul class="plain-list">
        {artifacts.map((a) => (
          <ArtifactItem key={`${a.id}:${a.updated_at}`} artifact={a} onSaved={onSaved} />
        ))}
      </ul>
    </section>
  );
}

function ArtifactItem({ artifact: a, onSaved }: { artifact: RunPageData['artifacts'][number]; onSaved(message: string): void }) {
  const problem = useSignal<string | undefined>(undefined);
  const name = a.title ?? a.uri ?? `${a.artifact_type} artifact`;
  const link = httpLink(a.uri);
  return (
    <li class="artifact">
      <p>
        <strong>{name}</strong>{' '}
        <span class="muted">
          ({a.artifact_type}, {a.status})
        </span>
      </p>
      {link ? (
        <p>
          <a href={link} rel="noreferrer noopener" target="_blank">
            {link}
          </a>
        </p>
      ) : a.uri ? (
        <p class="muted">{a.uri}</p>
      ) : null}
      {a.content !== null ? <pre class="artifact-text">{a.content}</pre> : null}
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          problem.value = undefined;
          let metadata: unknown;
          try {
            metadata = JSON.parse(String(new FormData(e.currentTarget as HTMLFormElement).get('metadata') ?? '{}'));
          } catch {
            problem.value = 'The metadata is not valid JSON.';
            return;
          }
          if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) {
            problem.value = 'The metadata must be a JSON object.';
            return;
          }
          try {
            await updateArtifactMetadata(a.id, metadata as Record<string, unknown>);
            onSaved(`Metadata of ${name} saved.`);
          } catch (err) {
            problem.value = (err as Error).message;
          }
        }}
      >
        <label class="field">
          <span>Metadata of {name} (JSON, merged into what it holds)</span>
          <textarea name="metadata" rows={3} defaultValue={JSON.stringify(a.metadata, null, 2)} />
        </label>
        <div class="actions">
          <button type="submit">Save metadata</button>
        </div>
      </form>
      <Problem text={problem.value} />
    </li>
  );
}

const sourceText: Record<RunPageData['usage']['price_source'], string> = {
  reported: 'reported by the agent',
  table: 'priced by the price table',
  runtime: 'reported by the runtime',
  unpriced: 'unpriced (tokens no price covers)',
  none: 'no usage yet',
};

function Usage({ usage: u }: { usage: RunPageData['usage'] }) {
  const count = (n: number | null) => (n === null ? '—' : n.toLocaleString());
  return (
    <section aria-labelledby="usage-title" class="card stack">
      <h2 id="usage-title">Usage and cost</h2>
      <dl class="facts">
        <div>
          <dt>Cost</dt>
          <dd>
            {u.billing === 'subscription'
              ? 'nothing billed (subscription)'
              : costText({ cost_estimate: u.cost, currency: u.currency, price_source: u.price_source, billing: null })}
          </dd>
        </div>
        <div>
          <dt>Price source</dt>
          <dd>{sourceText[u.price_source]}</dd>
        </div>
        <div>
          <dt>Billing</dt>
          <dd>{u.billing ?? 'metered'}</dd>
        </div>
        {u.shadow_cost !== null ? (
          <div>
            <dt>Shadow cost (subscription, at list price)</dt>
            <dd>{costText({ cost_estimate: u.shadow_cost, currency: u.currency, price_source: u.price_source, billing: null })}</dd>
          </div>
        ) : null}
        <div>
          <dt>Model</dt>
          <dd>{u.model_id ?? '—'}</dd>
        </div>
        <div>
          <dt>Input tokens</dt>
          <dd>{count(u.input_tokens)}</dd>
        </div>
        <div>
          <dt>Cached input tokens</dt>
          <dd>{count(u.cached_tokens)}</dd>
        </div>
        <div>
          <dt>Cache writes</dt>
          <dd>{count(u.cache_write_tokens)}</dd>
        </div>
        <div>
          <dt>Output tokens</dt>
          <dd>{count(u.output_tokens)}</dd>
        </div>
      </dl>
    </section>
  );
}

function Receipts({ receipts }: { receipts: RunPageData['receipts'] }) {
  return (
    <section aria-labelledby="receipts-title" class="card stack">
      <h2 id="receipts-title">Receipts of governed actions</h2>
      {receipts.length === 0 ? (
        <p class="muted">No governed action touched this run.</p>
      ) : (
        <ul class="plain-list">
          {receipts.map((r) => (
            <li key={r.action_id}>
              <strong>{r.kind}</strong> · {r.outcome ?? 'in progress'} · by {r.actor} · <LocalTime iso={r.created_at} />
              {r.rollback_hint ? <span class="muted"> · to undo: {r.rollback_hint}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
