import type { JSX } from 'preact';
import { api, expectData } from '../api';
import { useQuery } from '../queries';

/**
 * A session's transcript from the session reader (GET /api/rt/sessions/:sessionId/messages): its
 * messages as text, oldest first, refetched on run changes while `live`. A first version: the
 * transcript viewer (virtualized, searchable, following the live tail) takes its place.
 */
interface Entry {
  line: number;
  message: { role: string | null; content: unknown } | null;
}

/** A message's content as text: its text blocks, the other blocks named by their type. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: string }) => (typeof block?.text === 'string' ? block.text : `[${block?.type ?? 'block'}]`))
    .join('\n');
}

export function Transcript(props: { sessionId: string; live: boolean }): JSX.Element {
  const page = useQuery(`transcript:${props.sessionId}`, props.live ? ['runs'] : [], () =>
    expectData(api().GET('/api/rt/sessions/{sessionId}/messages', { params: { path: { sessionId: props.sessionId }, query: { limit: '500' } as never } })),
  );
  if (page.error.value) return <p class="problem">The transcript could not be read: {page.error.value}</p>;
  const messages = (page.data.value?.messages ?? []) as unknown as Entry[];
  if (!page.data.value) return <p class="muted">Reading the transcript…</p>;
  if (messages.length === 0) return <p class="muted">No messages yet.</p>;
  return (
    <ol class="transcript-list">
      {messages.map((m) => (
        <li key={m.line}>
          <strong>{m.message?.role ?? 'entry'}</strong>
          <pre>{textOf(m.message?.content)}</pre>
        </li>
      ))}
    </ol>
  );
}
