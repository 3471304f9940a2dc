import { useSignal, type Signal } from '@preact/signals';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import {
  followTail,
  loadLine,
  searchTranscript,
  transcriptLines,
  type SearchMatch,
  type TranscriptEvent,
  type TranscriptLines,
} from '../transcript-data';
import { LocalTime } from './local-time';
import { Problem } from './problem';

/**
 * A runtime session's transcript: one row per transcript line (user and assistant messages,
 * thinking behind a button, tool calls beside links to their results), virtualized with rows of
 * their own heights, read a page of lines at a time around what is on screen, so a transcript of
 * any size opens with its first page. A search field finds words across the whole session (the
 * server searches it) and moves to each match; "Jump to line" and the links between a tool call and
 * its result move to an event. While `live` and on screen, the session's live tail adds new lines
 * as the runtime writes them, and the viewer follows them when it shows the end. Text only.
 */
const LINE_ESTIMATE_PX = 76;
/** Rows rendered beyond the visible ones at each end. */
const OVERSCAN = 4;
/** Within this many pixels of the end, the viewer counts as showing it (and follows new lines). */
const AT_END_PX = 24;

type Align = 'start' | 'center' | 'end';
interface Search {
  q: string;
  matches: SearchMatch[];
  hasMore: boolean;
  nextAfterLine: number;
  /** The match shown (-1: none yet). */
  index: number;
}

export function Transcript(props: { sessionId: string; live: boolean }): JSX.Element {
  const { sessionId, live } = props;
  const lines = useMemo(() => transcriptLines(sessionId), [sessionId]);
  const { path, query, route } = useLocation();
  const total = lines.totalLines.value;
  // (read so that a line's arrival redraws the rows)
  void lines.version.value;
  // the session's agent and the transcript's own id (a run may name its session by key)
  const found = lines.found;
  const root = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const [, rerender] = useState(0);
  const expanded = useSignal<ReadonlySet<string>>(new Set());
  const current = useSignal<number | undefined>(undefined);
  const atEnd = useSignal(false);
  const lastScrollTop = useRef(0);
  const onScreen = useSignal(false);
  /** The live tail is open: new lines reach this viewer as they are written. */
  const tailOpen = useSignal(false);
  const search = useSignal<Search | undefined>(undefined);
  const problem = useSignal<string | undefined>(undefined);
  /** Where a jump goes, kept until its line has been read and drawn (then the virtualizer's own correction takes over). */
  const target = useRef<{ line: number; align: Align; focus: boolean; read?: boolean } | undefined>(undefined);

  const virtualizer = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLElement>({
        count: 0,
        getScrollElement: () => scroller.current,
        estimateSize: () => LINE_ESTIMATE_PX,
        // the first rows render with the first render, before the scroller's size is observed
        initialRect: { width: 0, height: Math.max(320, window.innerHeight * 0.6) },
        overscan: OVERSCAN,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        onChange: () => rerender((n) => n + 1),
      }),
    [lines],
  );
  virtualizer.setOptions({ ...virtualizer.options, count: total });
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => {
    virtualizer._willUpdate();
  });

  const items = virtualizer.getVirtualItems();
  const firstShown = items[0]?.index;
  const lastShown = items.at(-1)?.index;
  useEffect(() => {
    if (firstShown !== undefined && lastShown !== undefined) void lines.ensure(firstShown + 1, lastShown + 1);
  }, [firstShown, lastShown, total, lines]);

  // a jump lands once its line is read (scrolled to again, at its drawn height) and drawn (focused);
  // a viewer at the end stays there as lines arrive
  const followed = useRef(total);
  useLayoutEffect(() => {
    const goal = target.current;
    if (goal) {
      const events = lines.eventsOf(goal.line);
      if (events === undefined) return;
      if (!goal.read) {
        goal.read = true;
        virtualizer.scrollToIndex(goal.line - 1, { align: goal.align });
      }
      const drawn = root.current?.querySelector<HTMLElement>(`article[data-line="${goal.line}"]`);
      if (drawn || events.length === 0) {
        target.current = undefined;
        if (goal.focus) drawn?.focus({ preventScroll: true });
      }
    } else if (live && atEnd.value && total > followed.current) {
      // to the end as it is once the new rows are measured (the virtualizer retargets while they are)
      virtualizer.scrollToEnd();
    }
    followed.current = total;
  });

  /** Moves to a line; a move the operator asked for (`focus`) focuses it and puts it in the URL's `line`, to link to. */
  const goTo = (line: number, align: Align, focus: boolean) => {
    if (total === 0) return;
    const clamped = Math.min(Math.max(1, line), total);
    current.value = clamped;
    target.current = { line: clamped, align, focus };
    virtualizer.scrollToIndex(clamped - 1, { align });
    void lines.ensure(clamped - 1, clamped + 1).then(() => rerender((n) => n + 1));
    if (focus && query.line !== String(clamped)) {
      const next = new URLSearchParams(query);
      next.set('line', String(clamped));
      route(`${path}?${next}`, true);
    }
  };
  // a link to a line (the URL's `line`) moves there once the transcript's length is known
  const linked = useRef(false);
  useEffect(() => {
    const line = Number(query.line);
    if (linked.current || total === 0 || !Number.isInteger(line) || line < 1) return;
    linked.current = true;
    goTo(line, 'start', true);
  }, [total, query.line]);

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    // the newest entry is the state now: a batch may hold a leave and a return
    const observer = new IntersectionObserver((entries) => (onScreen.value = entries.at(-1)?.isIntersecting ?? false));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const opened = lines.opened.value;
  useEffect(() => {
    if (!live || !onScreen.value || !found || !opened) return;
    const stop = new AbortController();
    void followTail(
      found.agentId,
      found.sessionId,
      () => lines.tailCursor(),
      (event) => lines.addLive(event),
      stop.signal,
      (open) => (tailOpen.value = open),
    );
    return () => {
      stop.abort();
      tailOpen.value = false;
    };
  }, [live, onScreen.value, found?.agentId, found?.sessionId, opened, lines]);

  const runSearch = async (q: string) => {
    problem.value = undefined;
    if (!q) {
      search.value = undefined;
      return;
    }
    if (!found) return;
    try {
      const answer = await searchTranscript(found.agentId, found.sessionId, q);
      search.value = { q, matches: answer.matches, hasMore: answer.hasMore, nextAfterLine: answer.nextAfterLine, index: -1 };
      moveMatch(1);
    } catch (err) {
      problem.value = `The transcript could not be searched: ${(err as Error).message}`;
    }
  };
  const moveMatch = async (step: 1 | -1) => {
    const s = search.value;
    if (!s || !found) return;
    let { matches, hasMore, nextAfterLine } = s;
    let index = s.index + step;
    if (index >= matches.length && hasMore) {
      try {
        const more = await searchTranscript(found.agentId, found.sessionId, s.q, nextAfterLine);
        matches = [...matches, ...more.matches];
        ({ hasMore, nextAfterLine } = more);
      } catch (err) {
        problem.value = `The transcript could not be searched: ${(err as Error).message}`;
        return;
      }
    }
    if (matches.length === 0) return;
    index = (index + matches.length) % matches.length;
    search.value = { ...s, matches, hasMore, nextAfterLine, index };
    goTo(matches[index]!.line, 'center', false);
  };

  const s = search.value;
  const needle = s?.q.toLowerCase();
  const currentMatch = s && s.index >= 0 ? s.matches[s.index] : undefined;

  return (
    <div class="transcript" ref={root}>
      <div class="transcript-tools">
        <form
          role="search"
          aria-label="Search the transcript"
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            const q = String(new FormData(e.currentTarget as HTMLFormElement).get('q') ?? '').trim();
            if (s && s.q === q) void moveMatch(1);
            else void runSearch(q);
          }}
        >
          <input type="search" name="q" aria-label="Search the transcript" placeholder="Search the transcript" maxLength={200} />
          <button type="submit">Search</button>
          <button type="button" disabled={!s || s.matches.length === 0} onClick={() => void moveMatch(-1)}>
            Previous match
          </button>
          <button type="button" disabled={!s || s.matches.length === 0} onClick={() => void moveMatch(1)}>
            Next match
          </button>
        </form>
        <form
          class="inline-form"
          aria-label="Jump to an event"
          onSubmit={(e) => {
            e.preventDefault();
            const line = Number(new FormData(e.currentTarget as HTMLFormElement).get('line'));
            if (Number.isInteger(line) && line > 0) goTo(line, 'start', true);
          }}
        >
          <label class="field inline">
            <span>Jump to line</span>
            <input name="line" type="number" min={1} max={Math.max(1, total)} step={1} required />
          </label>
          <button type="submit">Jump</button>
          <button type="button" disabled={total === 0} onClick={() => goTo(1, 'start', true)}>
            Go to start
          </button>
          <button type="button" disabled={total === 0} onClick={() => goTo(total, 'end', true)}>
            Go to end
          </button>
        </form>
      </div>
      <p role="status" class="muted transcript-status">
        {statusText(lines, s, live && atEnd.value && tailOpen.value)}
      </p>
      <Problem text={problem.value} />
      <Problem text={lines.problem.value && `The transcript could not be read: ${lines.problem.value}`} />
      <div
        class="transcript-scroll"
        ref={scroller}
        tabIndex={0}
        role="region"
        aria-label={`Transcript lines, ${total} in all`}
        onScroll={(e) => {
          const el = e.currentTarget as HTMLDivElement;
          // Only a move up leaves the end: rows arriving or measured taller below push the end away
          // between the scrolls that follow it, and reading that as the operator's leaving stopped
          // the following with the newest lines out of view.
          if (el.scrollTop + el.clientHeight >= el.scrollHeight - AT_END_PX) atEnd.value = true;
          else if (el.scrollTop < lastScrollTop.current) atEnd.value = false;
          lastScrollTop.current = el.scrollTop;
        }}
      >
        <div class="transcript-inner" role="list" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const line = item.index + 1;
            const events = lines.eventsOf(line);
            return (
              <div
                key={line}
                data-index={item.index}
                ref={(el) => {
                  if (el) virtualizer.measureElement(el);
                }}
                class="transcript-slot"
                style={{ transform: `translateY(${item.start}px)` }}
                {...(events && events.length === 0 ? { 'aria-hidden': 'true' } : { role: 'listitem' })}
              >
                {events === undefined ? (
                  <p class="muted transcript-pending">Reading line {line}…</p>
                ) : events.length === 0 ? null : (
                  <TranscriptLine
                    line={line}
                    events={events}
                    needle={needle}
                    current={current.value === line}
                    matchBlock={currentMatch?.line === line ? currentMatch.block : undefined}
                    expanded={expanded}
                    onJump={(to) => goTo(to, 'start', true)}
                    onWhole={async () => {
                      if (!found) return;
                      try {
                        lines.setLine(line, await loadLine(found.agentId, found.sessionId, line));
                      } catch (err) {
                        problem.value = `Line ${line} could not be read: ${(err as Error).message}`;
                      }
                    }}
                  />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function statusText(lines: TranscriptLines, s: Search | undefined, following: boolean): string {
  if (!lines.opened.value) return 'Reading the transcript…';
  const parts = [`${lines.totalLines.value} lines`];
  if (s) {
    const count = `${s.matches.length}${s.hasMore ? '+' : ''}`;
    parts.push(s.matches.length === 0 ? `no match for “${s.q}”` : `match ${s.index + 1} of ${count} for “${s.q}”`);
  }
  if (following) parts.push('following new lines');
  return parts.join(' · ');
}

/** Who wrote a line, as its first event says. */
function authorOf(event: TranscriptEvent): string {
  switch (event.kind) {
    case 'session_meta':
      return 'Session';
    case 'model_change':
      return 'Model';
    case 'user_message':
      return 'User';
    case 'tool_result':
      return 'Tool result';
    case 'compaction':
      return 'Compaction';
    default:
      if (event.role === 'assistant') return 'Assistant';
      if (event.role) return event.role;
      return event.type === 'invalid' ? 'Unreadable line' : event.type;
  }
}

function TranscriptLine(props: {
  line: number;
  events: TranscriptEvent[];
  needle: string | undefined;
  current: boolean;
  matchBlock: number | undefined;
  expanded: Signal<ReadonlySet<string>>;
  onJump(line: number): void;
  onWhole(): void;
}) {
  const { line, events } = props;
  const head = events[0]!;
  const author = authorOf(head);
  const clipped = events.some((e) => e.clipped);
  const roleClass =
    head.kind === 'tool_result' ? 'tool' : head.role === 'assistant' ? 'assistant' : head.kind === 'user_message' ? 'user' : 'meta';
  return (
    <article
      class={`transcript-line ${roleClass}${props.current ? ' current' : ''}${head.rewound ? ' rewound' : ''}`}
      data-line={line}
      tabIndex={-1}
      aria-label={`Line ${line}: ${author}`}
    >
      <p class="line-head">
        <span class="author">{author}</span>
        <span class="muted">
          line {line}
          {head.timestamp ? (
            <>
              {' · '}
              <LocalTime iso={head.timestamp} />
            </>
          ) : null}
          {head.rewound ? ' · rewound' : ''}
        </span>
      </p>
      {events.map((event) => (
        <EventBody
          key={event.block}
          event={event}
          needle={props.needle}
          match={props.matchBlock === event.block}
          expanded={props.expanded}
          onJump={props.onJump}
        />
      ))}
      {clipped ? (
        <button type="button" class="quiet" onClick={props.onWhole}>
          Show all of line {line}
        </button>
      ) : null}
    </article>
  );
}

function EventBody(props: {
  event: TranscriptEvent;
  needle: string | undefined;
  match: boolean;
  expanded: Signal<ReadonlySet<string>>;
  onJump(line: number): void;
}) {
  const { event, needle } = props;
  const text = (value: string | null | undefined, cls = 'message-text') =>
    value ? <p class={`${cls}${props.match ? ' match' : ''}`}>{marked(value, needle)}</p> : null;
  switch (event.kind) {
    case 'session_meta':
      return (
        <p class="message-text">
          Session {event.meta?.id ?? ''} started{event.meta?.cwd ? ` in ${event.meta.cwd}` : ''}.
        </p>
      );
    case 'model_change':
      return <p class="message-text">{[event.model?.provider, event.model?.modelId].filter(Boolean).join(' / ') || 'Model changed'}</p>;
    case 'assistant_thinking': {
      const key = `${event.line}.${event.block}`;
      const open = props.expanded.value.has(key);
      return (
        <div class="thinking">
          <button
            type="button"
            class="quiet"
            aria-expanded={open}
            onClick={() => {
              const next = new Set(props.expanded.value);
              if (open) next.delete(key);
              else next.add(key);
              props.expanded.value = next;
            }}
          >
            {open ? 'Hide thinking' : 'Show thinking'}
          </button>
          {open || props.match ? text(event.preview, 'message-text thinking-text') : null}
        </div>
      );
    }
    case 'tool_call':
      return (
        <ToolPart class="tool-call" title="Tool call" name={event.tool?.name ?? 'unnamed'} text={event.tool?.argsPreview} {...props}>
          {event.tool?.resultLine ? (
            <LineLink label="Result" line={event.tool.resultLine} onJump={props.onJump} />
          ) : (
            <p class="muted">No result yet.</p>
          )}
        </ToolPart>
      );
    case 'tool_result':
      return (
        <ToolPart
          class={`tool-result${event.isError ? ' error' : ''}`}
          title={event.isError ? 'Failed' : 'Result of'}
          name={event.tool?.name ?? 'a tool'}
          text={event.tool?.resultPreview}
          {...props}
        >
          {event.tool?.callLine ? <LineLink label="Call" line={event.tool.callLine} onJump={props.onJump} /> : null}
        </ToolPart>
      );
    case 'compaction':
      return text(`Earlier turns compacted${event.preview ? `: ${event.preview}` : '.'}`);
    default:
      return (
        <>
          {text(event.preview)}
          {event.failedTurn ? (
            <p class="problem-text">The turn failed before a reply{event.failedTurn.error ? `: ${event.failedTurn.error}` : '.'}</p>
          ) : null}
        </>
      );
  }
}

/** A tool call or result: the tool's name, its arguments or output as preformatted text, and a link to its other half. */
function ToolPart(props: {
  class: string;
  title: string;
  name: string;
  text: string | undefined;
  needle: string | undefined;
  match: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={props.class}>
      <p class="tool-name">
        {props.title} <code>{props.name}</code>
      </p>
      {props.text ? <pre class={`tool-text${props.match ? ' match' : ''}`}>{marked(props.text, props.needle)}</pre> : null}
      {props.children}
    </div>
  );
}

/** Moves the viewer to another line (a tool call's result, a result's call). */
function LineLink({ label, line, onJump }: { label: string; line: number; onJump(line: number): void }) {
  return (
    <button type="button" class="quiet" onClick={() => onJump(line)}>
      {label} on line {line}
    </button>
  );
}

/** Text with each occurrence of the search's words marked (as text: the words are never HTML). */
function marked(value: string, needle: string | undefined): JSX.Element | string {
  if (!needle) return value;
  const lower = value.toLowerCase();
  const parts: (string | JSX.Element)[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    parts.push(value.slice(from, at), <mark key={at}>{value.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  if (parts.length === 0) return value;
  parts.push(value.slice(from));
  return <>{parts}</>;
}
