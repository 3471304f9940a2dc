/**
 * What the replay index needs from one transcript line (is it blank, is it JSON, which tool calls
 * does it make, which call does it answer), read from the line's UTF-8 bytes without decoding or
 * parsing them into values. Building the index of a 20 MB transcript with JSON.parse of every line
 * took ~80 ms and ~60 MB of garbage; this scan checks the same grammar byte by byte,
 * so the first (cold) replay of a large transcript stays cheap.
 *
 * It answers only what it is sure of: undefined means "read the text instead" (the caller then
 * decodes the line and asks JSON.parse, whose verdict is the rule). So a line that is not JSON, one
 * where a name that matters is written with an escape or a value that matters (role, type, ids) with
 * an escape or beyond ASCII, or any line this scan does not follow, costs what it cost before; an
 * answer given here is what `toolCallIdsOf(parseLine(text))` and `toolResultIdOf(parseLine(text))`
 * answer for the line's text (test/unit/replay-line-scan.test.ts holds it to JSON.parse).
 */
export type ReplayLineFacts = { blank: true } | { blank: false; callIds: readonly string[]; resultId: string | undefined };

const BLANK: ReplayLineFacts = { blank: true };
const NO_IDS: readonly string[] = [];
const NOT_A_MESSAGE: ReplayLineFacts = { blank: false, callIds: NO_IDS, resultId: undefined };
/** Longest id taken from bytes; a longer one is read from the text. */
const MAX_ID_BYTES = 1024;
/** Not sure: the caller reads the text. */
const UNSURE = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));

/** Bytes that need no attention inside a string: not `"`, not `\`, not a control character. */
const PLAIN_IN_STRING = new Uint8Array(256).fill(1);
for (let c = 0; c < 0x20; c++) PLAIN_IN_STRING[c] = 0;
PLAIN_IN_STRING[QUOTE] = 0;
PLAIN_IN_STRING[BACKSLASH] = 0;

/** JSON whitespace inside a line (a line holds no CR or LF). */
function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && (b[i] === 0x20 || b[i] === 0x09)) i++;
  return i;
}

/** A string starting at its opening quote: the index after the closing one, or UNSURE. */
function scanString(b: Uint8Array, i: number, end: number): number {
  i++;
  for (;;) {
    while (i < end && PLAIN_IN_STRING[b[i]!] === 1) i++;
    if (i >= end) return UNSURE;
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) return UNSURE; // a control character
    const escaped = b[i + 1];
    if (escaped === 0x75) {
      if (!(isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]) && isHex(b[i + 5]))) return UNSURE;
      i += 6;
    } else if (
      escaped === QUOTE ||
      escaped === BACKSLASH ||
      escaped === 0x2f ||
      escaped === 0x62 ||
      escaped === 0x66 ||
      escaped === 0x6e ||
      escaped === 0x72 ||
      escaped === 0x74
    ) {
      i += 2;
    } else {
      return UNSURE;
    }
  }
}

/** The index after the digits at i (i itself when there are none). */
function skipDigits(b: Uint8Array, i: number, end: number): number {
  while (i < end && isDigit(b[i])) i++;
  return i;
}

function scanNumber(b: Uint8Array, i: number, end: number): number {
  if (i < end && b[i] === 0x2d) i++;
  if (i < end && b[i] === 0x30) i++;
  else if (i === (i = skipDigits(b, i, end))) return UNSURE;
  if (i < end && b[i] === 0x2e && i + 1 === (i = skipDigits(b, i + 1, end))) return UNSURE;
  if (i < end && (b[i] === 0x45 || b[i] === 0x65)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i === (i = skipDigits(b, i, end))) return UNSURE;
  }
  return i;
}

function scanWord(b: Uint8Array, i: number, end: number, word: readonly number[]): number {
  if (i + word.length > end) return UNSURE;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return UNSURE;
  return i + word.length;
}
const codes = (text: string) => [...text].map((c) => c.charCodeAt(0));
const TRUE = codes('true');
const FALSE = codes('false');
const NULL = codes('null');

/** A scalar other than a string: the index after it, or UNSURE. */
function scanLiteralOrNumber(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  return c === 0x74
    ? scanWord(b, i, end, TRUE)
    : c === 0x66
      ? scanWord(b, i, end, FALSE)
      : c === 0x6e
        ? scanWord(b, i, end, NULL)
        : scanNumber(b, i, end);
}

/** The bytes [from, to) are exactly the ASCII text `name`. */
function bytesAre(b: Uint8Array, from: number, to: number, name: readonly number[]): boolean {
  if (to - from !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (b[from + k] !== name[k]) return false;
  return true;
}

/**
 * Where a container sits, as far as replay cares: the line's object, its `message` object, that
 * message's `content` array, an object element of it; anything else is OTHER.
 */
const OTHER = 0;
const LINE = 1;
const MESSAGE = 2;
const CONTENT = 3;
const BLOCK = 4;

/** The member names that matter, each in the one place it matters. */
const NAMES: ReadonlyArray<{ where: number; name: readonly number[] }> = [
  { where: LINE, name: codes('message') },
  { where: MESSAGE, name: codes('role') },
  { where: MESSAGE, name: codes('toolCallId') },
  { where: MESSAGE, name: codes('content') },
  { where: BLOCK, name: codes('type') },
  { where: BLOCK, name: codes('id') },
];
const NO_NAME = -2;
const [N_MESSAGE, N_ROLE, N_TOOL_CALL_ID, N_CONTENT, N_TYPE, N_ID] = [0, 1, 2, 3, 4, 5];
const ASSISTANT = codes('assistant');
const TOOL_RESULT = codes('toolResult');
const TOOL_CALL = codes('toolCall');

/** The string [from, to) (quotes included) is written with an escape. */
function isEscaped(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from + 1; k < to - 1; k++) if (b[k] === BACKSLASH) return true;
  return false;
}

/** The string [from, to) (quotes included) is written plainly: no escape, nothing beyond ASCII. */
function isPlain(b: Uint8Array, from: number, to: number): boolean {
  for (let k = from + 1; k < to - 1; k++) if (b[k] === BACKSLASH || b[k]! >= 0x80) return false;
  return true;
}

/** Per place, the indexes in NAMES of the names that matter there. */
const NAMES_AT: ReadonlyArray<readonly number[]> = [OTHER, LINE, MESSAGE, CONTENT, BLOCK].map((place) =>
  NAMES.flatMap((n, k) => (n.where === place ? [k] : [])),
);

/** The index in NAMES of the member name [from, to) (quotes included) of a container at `where`; NO_NAME; UNSURE for an escaped name there. */
function nameAt(b: Uint8Array, from: number, to: number, where: number): number {
  const candidates = NAMES_AT[where]!;
  for (let k = 0; k < candidates.length; k++) if (bytesAre(b, from + 1, to - 1, NAMES[candidates[k]!]!.name)) return candidates[k]!;
  // a name written with an escape might spell one of them
  return candidates.length > 0 && isEscaped(b, from, to) ? UNSURE : NO_NAME;
}

/** The ASCII string [from, to) (quotes included) as text, when it is short enough to be an id read from bytes. */
function idOf(b: Uint8Array, from: number, to: number): string | undefined {
  if (to - from - 2 > MAX_ID_BYTES) return undefined;
  let id = '';
  for (let k = from + 1; k < to - 1; k++) id += String.fromCharCode(b[k]!);
  return id;
}

const ROLE_OTHER = 0;
const ROLE_ASSISTANT = 1;
const ROLE_TOOL_RESULT = 2;

/**
 * Scans lines one after another (one scanner per index build): its fields are one line's scan,
 * kept so that a line allocates nothing but its ids.
 */
export class ReplayLineScanner {
  /** Per open container, outermost first: its opening byte, where it sits, the name of the member being read. */
  private readonly openers: number[] = [];
  private readonly places: number[] = [];
  private readonly members: number[] = [];
  /** The line's `message` (the last of repeated names wins, as in JSON.parse). */
  private messageIsRecord = false;
  private role = ROLE_OTHER;
  /** The message's toolCallId as a plain string [from, to), quotes included; from -1 when it is not one. */
  private resultFrom = -1;
  private resultTo = -1;
  /** The message's content is an array; the tool call ids found in it so far (a list only once there is one). */
  private contentIsArray = false;
  private calls: string[] | undefined;
  /** The content block being read: `type` is "toolCall"; its id as a plain string [from, to). */
  private blockIsCall = false;
  private blockIdFrom = -1;
  private blockIdTo = -1;
  /** The one answer object: a line's facts are read before the next line is scanned. */
  private readonly answer: { blank: false; callIds: readonly string[]; resultId: string | undefined } = {
    blank: false,
    callIds: NO_IDS,
    resultId: undefined,
  };

  /**
   * The facts of the line in bytes [start, end) of `b`, or undefined when only its text can tell.
   * The answer is only good until the next call.
   */
  scan(b: Uint8Array, start: number, end: number): ReplayLineFacts | undefined {
    const { openers, places, members } = this;
    let i = skipSpace(b, start, end);
    if (i === end) return BLANK;
    let depth = 0;
    this.messageIsRecord = false;
    this.role = ROLE_OTHER;
    this.resultFrom = -1;
    this.contentIsArray = false;
    this.calls = undefined;
    for (;;) {
      // a value, read as member `member` of a container at `parent` (OTHER at the top)
      i = skipSpace(b, i, end);
      if (i >= end) return undefined;
      const c = b[i]!;
      const parent = depth === 0 ? OTHER : places[depth - 1]!;
      const member = depth === 0 ? NO_NAME : members[depth - 1]!;
      let place = depth === 0 && c === OPEN_OBJECT ? LINE : OTHER;
      if (parent === LINE && member === N_MESSAGE) {
        this.messageIsRecord = c === OPEN_OBJECT;
        this.role = ROLE_OTHER;
        this.resultFrom = -1;
        this.contentIsArray = false;
        this.calls = undefined;
        if (this.messageIsRecord) place = MESSAGE;
      } else if (parent === MESSAGE && member === N_CONTENT) {
        this.contentIsArray = c === OPEN_ARRAY;
        this.calls = undefined;
        if (this.contentIsArray) place = CONTENT;
      } else if (parent === CONTENT && c === OPEN_OBJECT) {
        this.blockIsCall = false;
        this.blockIdFrom = -1;
        place = BLOCK;
      } else if (parent === MESSAGE || parent === BLOCK) {
        // a kept member's value counts as no string until it is read as one below
        if (member === N_ROLE) this.role = ROLE_OTHER;
        else if (member === N_TOOL_CALL_ID) this.resultFrom = -1;
        else if (member === N_TYPE) this.blockIsCall = false;
        else if (member === N_ID) this.blockIdFrom = -1;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        i = skipSpace(b, i + 1, end);
        openers[depth] = c;
        places[depth] = place;
        depth++;
        if (i < end && b[i] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          depth--;
          i++;
        } else {
          if (c === OPEN_OBJECT && (i = this.memberName(b, i, end, depth)) === UNSURE) return undefined;
          continue;
        }
      } else if (c === QUOTE) {
        const from = i;
        i = scanString(b, i, end);
        if (i === UNSURE) return undefined;
        const kept =
          (parent === MESSAGE && (member === N_ROLE || member === N_TOOL_CALL_ID)) ||
          (parent === BLOCK && (member === N_TYPE || member === N_ID));
        if (kept) {
          // a kept string written with an escape or beyond ASCII: its text tells what it is
          if (!isPlain(b, from, i)) return undefined;
          if (member === N_ROLE)
            this.role = bytesAre(b, from + 1, i - 1, ASSISTANT)
              ? ROLE_ASSISTANT
              : bytesAre(b, from + 1, i - 1, TOOL_RESULT)
                ? ROLE_TOOL_RESULT
                : ROLE_OTHER;
          else if (member === N_TOOL_CALL_ID) {
            this.resultFrom = from;
            this.resultTo = i;
          } else if (member === N_TYPE) this.blockIsCall = bytesAre(b, from + 1, i - 1, TOOL_CALL);
          else {
            this.blockIdFrom = from;
            this.blockIdTo = i;
          }
        }
      } else if ((i = scanLiteralOrNumber(b, i, end)) === UNSURE) {
        return undefined;
      }
      // after a value: a comma and the next, the end of its container (and maybe of theirs), or the end of the line
      for (;;) {
        i = skipSpace(b, i, end);
        if (depth === 0) return i === end ? this.facts(b) : undefined;
        if (i >= end) return undefined;
        const inObject = openers[depth - 1] === OPEN_OBJECT;
        if (b[i] === COMMA) {
          i = skipSpace(b, i + 1, end);
          if (inObject && (i = this.memberName(b, i, end, depth)) === UNSURE) return undefined;
          break;
        }
        if (b[i] !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) return undefined;
        if (places[depth - 1] === BLOCK && this.blockIsCall && this.blockIdFrom >= 0) {
          const id = idOf(b, this.blockIdFrom, this.blockIdTo);
          if (id === undefined) return undefined;
          (this.calls ??= []).push(id);
        }
        depth--;
        i++;
      }
    }
  }

  /** `"name" :` at i, the name of the next member of the container at depth - 1: the index after the colon, or UNSURE. */
  private memberName(b: Uint8Array, i: number, end: number, depth: number): number {
    if (i >= end || b[i] !== QUOTE) return UNSURE;
    const from = i;
    i = scanString(b, i, end);
    if (i === UNSURE) return UNSURE;
    const name = nameAt(b, from, i, this.places[depth - 1]!);
    if (name === UNSURE) return UNSURE;
    this.members[depth - 1] = name;
    i = skipSpace(b, i, end);
    return i < end && b[i] === COLON ? i + 1 : UNSURE;
  }

  private facts(b: Uint8Array): ReplayLineFacts | undefined {
    if (!this.messageIsRecord) return NOT_A_MESSAGE;
    const { answer } = this;
    answer.callIds = this.role === ROLE_ASSISTANT && this.contentIsArray && this.calls ? this.calls : NO_IDS;
    answer.resultId = undefined;
    if (this.role === ROLE_TOOL_RESULT && this.resultFrom >= 0) {
      answer.resultId = idOf(b, this.resultFrom, this.resultTo);
      if (answer.resultId === undefined) return undefined;
    }
    return answer;
  }
}
