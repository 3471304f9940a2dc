import type { ComponentChildren } from 'preact';
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
  // what the session reader says of the session, in this order; what it does not know (null) is left out
  const facts: [string, ComponentChildren][] = [
    ['Agent', session?.agentId ?? '…'],
    ['Key', session?.key ?? null],
    ['Started', started ? <LocalTime iso={started} /> : '—'],
    ['Model', model ?? '—'],
    ['Status', session?.status ?? null],
    ['Updated', session?.updatedAt ? <LocalTime iso={new Date(session.updatedAt).toISOString()} /> : null],
  ];
  return (
    <section aria-labelledby="screen-title" class="screen session-page">
      <h1 id="screen-title">Session {id}</h1>
      <dl class="session-facts">
        {facts
          .filter(([, value]) => value !== null)
          .map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
      </dl>
      <section aria-labelledby="transcript-title" class="card stack">
        <h2 id="transcript-title">Transcript</h2>
        <Transcript sessionId={id} live />
      </section>
    </section>
  );
}
