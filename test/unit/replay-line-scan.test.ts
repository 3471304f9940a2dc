import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLine, toolCallIdsOf, toolResultIdOf } from '../../core/runtime/replay';
import { ReplayLineScanner } from '../../core/runtime/replay-line-scan';

/**
 * The byte scan behind the replay index (core/runtime/replay-line-scan.ts) against its oracle,
 * what the text reader concludes from the decoded line with JSON.parse: whenever the scan answers,
 * it answers exactly that, and it never calls a line JSON that JSON.parse refuses.
 */
function oracle(text: string) {
  if (!/\S/.test(text)) return { blank: true };
  const parsed = parseLine(text);
  if (!parsed.ok) return 'not json';
  return { blank: false, callIds: toolCallIdsOf(parsed), resultId: toolResultIdOf(parsed) };
}

// one scanner for every line, as an index build uses it
const scanner = new ReplayLineScanner();
const scanReplayLine = (bytes: Uint8Array, from: number, to: number) => scanner.scan(bytes, from, to);

function check(bytes: Uint8Array, from = 0, to = bytes.length): void {
  const text = Buffer.from(bytes.subarray(from, to)).toString('utf8');
  const expected = oracle(text);
  const answer = scanReplayLine(bytes, from, to);
  if (answer === undefined) return;
  expect(expected, `scan answered for ${JSON.stringify(text)}`).not.toBe('not json');
  expect(answer.blank ? { blank: true } : { blank: false, callIds: [...answer.callIds], resultId: answer.resultId }).toEqual(expected);
}
const checkText = (text: string) => check(Buffer.from(text, 'utf8'));

// no line holds a line ending: the splitter cut there
const oneLine = (text: string) => text.replace(/[\r\n]/g, ' ');

const ids = fc.oneof(
  fc.constantFrom('c1', 'c2', 'call_01', ''),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);
const block = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('toolCall', 'text', 'thinking', 'toolcall'),
      id: fc.oneof(ids, fc.integer(), fc.constant(null)),
      name: fc.string({ maxLength: 4 }),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('assistant', 'toolResult', 'user', 'Assistant'), fc.integer(), fc.constant(null)),
    content: fc.oneof(fc.array(block, { maxLength: 4 }), fc.string({ maxLength: 8 }), block),
    toolCallId: fc.oneof(ids, fc.integer(), fc.constant(null)),
    toolName: fc.string({ maxLength: 4 }),
  },
  { requiredKeys: [] },
);
const lineValue = fc.oneof(
  fc.record(
    { type: fc.constantFrom('message', 'note'), message: fc.oneof(message, fc.jsonValue({ maxDepth: 1 })) },
    { requiredKeys: ['message'] },
  ),
  fc.jsonValue({ maxDepth: 4 }),
);
/**
 * Objects written member by member, so that names repeat (JSON.parse keeps the last) and names or
 * strings are sometimes written with escapes.
 */
const escapedOrNot = (name: string) =>
  fc.oneof(
    { weight: 7, arbitrary: fc.constant(JSON.stringify(name)) },
    { weight: 1, arbitrary: fc.constant(`"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${name.slice(1)}"`) },
  );
const objectText = (members: fc.Arbitrary<[string, string]>) =>
  fc.array(members, { maxLength: 4 }).map((list) => `{${list.map(([name, value]) => `${name}:${value}`).join(',')}}`);
const member = (name: string, value: fc.Arbitrary<string>) => fc.tuple(escapedOrNot(name), value);
const anyJson = fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v));
const stringOrNot = (values: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 3, arbitrary: values.chain(escapedOrNot) }, { weight: 1, arbitrary: anyJson });
const blockText = objectText(
  fc.oneof(
    member('type', stringOrNot(fc.constantFrom('toolCall', 'text'))),
    member('id', stringOrNot(fc.constantFrom('a', 'b'))),
    member('name', anyJson),
  ),
);
const contentText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.oneof({ weight: 4, arbitrary: blockText }, { weight: 1, arbitrary: anyJson }), { maxLength: 3 })
      .map((items) => `[${items.join(',')}]`),
  },
  { weight: 1, arbitrary: anyJson },
);
const messageText = objectText(
  fc.oneof(
    { weight: 2, arbitrary: member('role', stringOrNot(fc.constantFrom('assistant', 'assistant', 'toolResult', 'user'))) },
    member('toolCallId', stringOrNot(fc.constantFrom('a', 'b'))),
    member('content', contentText),
    member('x', anyJson),
  ),
);
const repeatedNames = objectText(
  fc.oneof(
    { weight: 4, arbitrary: member('message', fc.oneof({ weight: 4, arbitrary: messageText }, { weight: 1, arbitrary: anyJson })) },
    { weight: 1, arbitrary: member('type', anyJson) },
  ),
);

/** JSON text of a value, compact or spread with spaces and tabs between the tokens. */
const written = fc
  .tuple(lineValue, fc.constantFrom(undefined, ' ', '\t', '  '))
  .map(([value, indent]) => oneLine(JSON.stringify(value, null, indent) ?? 'null'));

/** A text with one edit: a cut, a character dropped, put in or put in place of another. */
const mutated = fc
  .tuple(
    fc.oneof(written, repeatedNames),
    fc.nat(),
    fc.constantFrom('cut', 'drop', 'insert', 'replace'),
    fc.constantFrom('"', '\\', ',', '}', ']', '{', '[', ':', '0', '-', '.', 'e', 'x', '\t', '\u0001', '\u00e9', ' '),
  )
  .map(([text, at, edit, char]) => {
    const i = text.length === 0 ? 0 : at % (text.length + 1);
    if (edit === 'cut') return text.slice(0, i);
    if (edit === 'drop') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + char + text.slice(edit === 'replace' ? i + 1 : i);
  });

describe('the replay line scan', () => {
  it('answers what JSON.parse of the text answers, for written JSON lines', () => {
    fc.assert(
      fc.property(written, (text) => checkText(text)),
      { numRuns: 2000 },
    );
  });

  it('answers what JSON.parse answers when names repeat or are written with escapes', () => {
    fc.assert(
      fc.property(repeatedNames, (text) => checkText(text)),
      { numRuns: 4000 },
    );
  });

  it('never calls a broken line JSON, and answers the rest as JSON.parse does', () => {
    fc.assert(
      fc.property(mutated, (text) => checkText(text)),
      { numRuns: 4000 },
    );
  });

  it('answers any bytes, including invalid UTF-8, within a range of a larger buffer', () => {
    const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => b.map((x) => (x === 0x0a || x === 0x0d ? 0x20 : x)));
    fc.assert(
      fc.property(bytes, fc.uint8Array({ maxLength: 4 }), fc.uint8Array({ maxLength: 4 }), (line, before, after) => {
        const whole = new Uint8Array([...before, ...line, ...after]);
        check(whole, before.length, before.length + line.length);
      }),
      { numRuns: 3000 },
    );
  });

  it('is exact on the lines whose names, values or grammar it must not take at their face', () => {
    const lines = [
      '',
      ' \t ',
      '\u00a0',
      '\u000b{}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"},{"type":"toolCall","id":"b"},{"type":"toolCall","id":"a"}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a","type":"text"}]}}',
      '{"message":{"role":"assistant","content":[{"id":"a","type":"toolCall"}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":1}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","type":1,"id":"a"}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"},{"id":"b"}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"}],"content":[]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"}]},"message":{"content":[{"type":"toolCall","id":"b"}]}}',
      '{"message":{"toolCallId":"a","role":"toolResult","role":{}}}',
      '{"message":{"role":"toolResult","toolCallId":"a","toolCallId":["a"]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a","id":{"a":1}}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","type":["toolCall"],"id":"a"}]}}',
      '{"a":[1}',
      '{"a":{]}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"}]},"message":{"role":"user"}}',
      '{"message":{"role":"user"},"message":{"role":"assistant","content":[{"type":"toolCall","id":"b"}]}}',
      '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"}],"content":"text"}}',
      '{"message":{"content":[{"type":"toolCall","id":"a"}],"role":"assistant"}}',
      '{"message":{"role":"assistant","role":"user","content":[{"type":"toolCall","id":"a"}]}}',
      '{"message":{"role":"toolResult","toolCallId":"a"}}',
      '{"message":{"role":"toolResult","toolCallId":"a","toolCallId":2}}',
      '{"message":{"role":"toolResult","toolCallId":"\\u0061"}}',
      '{"message":{"role":"tool\\u0052esult","toolCallId":"a"}}',
      '{"mess\\u0061ge":{"role":"toolResult","toolCallId":"a"}}',
      '{"message":{"role":"toolResult","toolCallId":"é"}}',
      '{"message":{"role":"toolResult","toolCallId":"a"},"x":{"message":{"role":"assistant"}}}',
      '{"message":[{"role":"toolResult","toolCallId":"a"}]}',
      '[{"message":{"role":"toolResult","toolCallId":"a"}}]',
      '{"message":{"role":"toolResult","toolCallId":"a"}} ',
      '{"message":{"role":"toolResult","toolCallId":"a"}}}',
      '{"message":{"role":"toolResult","toolCallId":"a",}}',
      '{"a":01}',
      '{"a":-}',
      '{"a":1.}',
      '{"a":1e}',
      '{"a":-0.5e+7}',
      '{"a":"tab\there"}',
      '{"a":"\\x"}',
      '{"a":"\\u12g4"}',
      '{"a":tru}',
      '{"a":nul}',
      '"just a string"',
      '12',
      'true',
      '\ufeff{}',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      `{"message":{"role":"toolResult","toolCallId":"${'x'.repeat(2000)}"}}`,
    ];
    for (const line of lines) checkText(line);
    // and it does answer the plain ones itself, without the text
    const scanned = (text: string) => scanReplayLine(Buffer.from(text), 0, Buffer.byteLength(text));
    expect(
      scanned(
        '{"message":{"role":"assistant","content":[{"type":"toolCall","id":"a"},{"type":"toolCall","id":"b"},{"type":"toolCall","id":"a"}]}}',
      ),
    ).toMatchObject({ callIds: ['a', 'b', 'a'] });
    expect(scanned('{ "message" : { "role" : "toolResult" , "toolCallId" : "a" } }')).toMatchObject({ resultId: 'a' });
    expect(scanned(' \t')).toEqual({ blank: true });
  });
});
