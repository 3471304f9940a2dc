import fc from 'fast-check';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { eventFrame, FrameBatch } from '../../infra/events/stream-client';
import type { OutboxEvent } from '../../infra/events/outbox-store';

function parse(text: string): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  parser.feed(text);
  return out;
}

const event = (id: number, channel: 'events' | 'stream', name = 'x'): OutboxEvent => ({
  id,
  channel,
  name,
  payload: JSON.stringify({ id }),
});

describe('SSE frames', () => {
  it('round-trip any JSON payload and event name through a standard SSE parser', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string({ minLength: 1 }), fc.jsonValue(), (id, name, value) => {
        // PostgreSQL hands jsonb back as single-line text, as JSON.stringify does.
        const [parsed] = parse(eventFrame({ id, name, payload: JSON.stringify(value) }));
        expect(parsed!.id).toBe(String(id));
        expect(JSON.parse(parsed!.data)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(parsed!.event).toBe(name.replace(/[\r\n]+/g, ' ') || undefined);
      }),
    );
  });

  it('a batch gives each channel set only its frames, and skips ids a client already has', () => {
    const batch = new FrameBatch([event(5, 'events'), event(6, 'stream'), event(7, 'events')]);
    expect(parse(batch.textFor(['events'], 0)).map((e) => e.id)).toEqual(['5', '7']);
    expect(parse(batch.textFor(['events', 'stream'], 0)).map((e) => e.id)).toEqual(['5', '6', '7']);
    expect(parse(batch.textFor(['events', 'stream'], 5)).map((e) => e.id)).toEqual(['6', '7']);
    expect(parse(batch.textFor(['events'], 7))).toEqual([]);
    expect([batch.firstId, batch.lastId]).toEqual([5, 7]);
  });
});
