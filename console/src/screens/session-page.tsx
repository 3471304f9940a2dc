import { useMemo } from 'preact/hooks';
import { LocalTime } from '../parts/local-time';
import { Transcript } from '../parts/transcript';
import { transcriptLines } from '../transcript-data';

/**
 * One runtime session (opened from a task's linked sessions): who ran it, when it started, on which
 * model, and its transcript. The page follows the transcript's new lines while it is open: a
 * finished session's transcript no longer grows, so its live tail simply sends nothing.
 */
export function SessionPage({ id = '' }: { path: string; id?: string }) {
  const lines = useMemo(() => transcriptLines(id), [id]);
  const session = lines.session.value;
  // read once the first page has arrived (the header's facts are on its first lines)
  void lines.version.value;
  const meta = lines.first('session_meta');
  const started = meta?.timestamp ?? lines.first('user_message')?.timestamp ?? null;
  const modelEvent = lines.first('model_change');
  const model = modelEvent?.model?.modelId ?? modelEvent?.assistant?.model ?? null;
  return (
    <section aria-labelledby="screen-title" class="screen session-page">
      <h1 id="screen-title">Session {id}</h1>
      <dl class="session-facts">
        <div>
          <dt>Agent</dt>
          <dd>{session?.agentId ?? '…'}</dd>
        </div>
        {session?.key ? (
          <div>
            <dt>Key</dt>
            <dd>{session.key}</dd>
          </div>
        ) : null}
        <div>
          <dt>Started</dt>
          <dd>{started ? <LocalTime iso={started} /> : '—'}</dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>{model ?? '—'}</dd>
        </div>
        {session?.status ? (
          <div>
            <dt>Status</dt>
            <dd>{session.status}</dd>
          </div>
        ) : null}
        {session?.updatedAt ? (
          <div>
            <dt>Updated</dt>
            <dd>
              <LocalTime iso={new Date(session.updatedAt).toISOString()} />
            </dd>
          </div>
        ) : null}
      </dl>
      <section aria-labelledby="transcript-title" class="card stack">
        <h2 id="transcript-title">Transcript</h2>
        <Transcript sessionId={id} live />
      </section>
    </section>
  );
}
