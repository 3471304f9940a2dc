import { isRecord } from './payload';
import { treePlaceOf } from './transcript-tree';

/**
 * Transcript replay normalization (docs/runtime-contract.md §2, spec 01 "Replay rules"):
 * one transcript line becomes zero or more typed events sharing its line number.
 */
export const replayEventKinds = [
  'session_meta',
  'model_change',
  'user_message',
  'assistant_thinking',
  'tool_call',
  'tool_result',
  'compaction',
  'other',
] as const;
export type ReplayEventKind = (typeof replayEventKinds)[number];

/** Replay preview bodies are cut to this many characters (spec 01 Limits). */
export const PREVIEW_CHARS = 400;

export interface ToolCallInfo {
  toolCallId: string | null;
  name: string | null;
  argsPreview: string;
  /** Line of the matching tool result, null while unpaired. */
  resultLine: number | null;
}

export interface ToolResultInfo {
  toolCallId: string | null;
  name: string | null;
  resultPreview: string;
  details: { status: unknown; exitCode: unknown; durationMs: unknown; cwd: unknown };
  /** Line of the matching tool call, null when the call is not in the transcript. */
  callLine: number | null;
}

export interface ReplayEvent {
  line: number;
  /** Position among the events of the same line (an assistant line yields one per block). */
  block: number;
  kind: ReplayEventKind;
  /** The line's `type` as written (or `invalid` for a line that is not JSON). */
  type: string;
  role: string | null;
  timestamp: string | null;
  preview: string | null;
  /** True when preview (or a tool preview) was cut to PREVIEW_CHARS. */
  clipped: boolean;
  tool?: ToolCallInfo | ToolResultInfo;
  isError?: boolean;
  model?: { provider: string | null; modelId: string | null };
  meta?: { id: string | null; cwd: string | null };
  /** The entry's id and parent in the released runtime's transcript tree (transcript-tree.ts). */
  entryId?: string;
  parentId?: string | null;
  /** True for an entry off the branch that was kept (a rewind left it behind). */
  rewound?: boolean;
  /**
   * What the runtime recorded about an assistant message (on its first event only, so that sums
   * over events count each message once): provider, model, stop reason, token usage and cost.
   */
  assistant?: AssistantMessageInfo;
  /** A turn that ended before any reply (`run-failed-before-reply`): its run and error. */
  failedTurn?: { runId: string | null; error: string | null };
}

export interface AssistantMessageInfo {
  provider: string | null;
  model: string | null;
  stopReason: string | null;
  usage: Record<string, unknown> | null;
  /** The cost of the message as the runtime priced it (usage.cost), or null. */
  cost: Record<string, unknown> | null;
}

/** The runtime's record of an assistant message, or undefined when it wrote none of it (the contract's transcripts). */
export function assistantInfoOf(message: Record<string, unknown>): AssistantMessageInfo | undefined {
  if (message.usage === undefined && message.provider === undefined && message.model === undefined && message.stopReason === undefined)
    return undefined;
  const usage = isRecord(message.usage) ? message.usage : null;
  return {
    provider: str(message.provider),
    model: str(message.model),
    stopReason: str(message.stopReason),
    usage,
    cost: usage && isRecord(usage.cost) ? usage.cost : null,
  };
}

/** A transcript line, parsed once: the value, or a marker that it did not parse. */
export type ParsedLine = { ok: true; value: unknown } | { ok: false; text: string };

export function parseLine(text: string): ParsedLine {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, text };
  }
}

/** Text of string content or of content blocks ({type: text, text}); other blocks are named. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => {
        if (typeof block === 'string') return block;
        if (isRecord(block)) {
          if (typeof block.text === 'string') return block.text;
          if (typeof block.thinking === 'string') return block.thinking;
          return `[${typeof block.type === 'string' ? block.type : 'block'}]`;
        }
        return '';
      })
      .join('\n');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

function clip(text: string, limit: number | null): { text: string; clipped: boolean } {
  if (limit === null || text.length <= limit) return { text, clipped: false };
  return { text: text.slice(0, limit), clipped: true };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The events of one line. `previewLimit` null means full bodies (the detail endpoint).
 * Tool pairing (resultLine, callLine) is filled in by the caller, which sees the other lines.
 */
export function eventsOfLine(line: number, parsed: ParsedLine, previewLimit: number | null = PREVIEW_CHARS): ReplayEvent[] {
  const events = eventsOfEntry(line, parsed, previewLimit);
  const place = treePlaceOf(parsed);
  if (place) for (const event of events) Object.assign(event, { entryId: place.id, parentId: place.parentId });
  return events;
}

function eventsOfEntry(line: number, parsed: ParsedLine, previewLimit: number | null): ReplayEvent[] {
  const base = (kind: ReplayEventKind, type: string, extra: Partial<ReplayEvent> = {}): ReplayEvent => ({
    line,
    block: 0,
    kind,
    type,
    role: null,
    timestamp: null,
    preview: null,
    clipped: false,
    ...extra,
  });
  if (!parsed.ok) {
    const { text, clipped } = clip(parsed.text, previewLimit);
    return [base('other', 'invalid', { preview: text, clipped })];
  }
  const entry = parsed.value;
  if (!isRecord(entry)) {
    const { text, clipped } = clip(JSON.stringify(entry), previewLimit);
    return [base('other', 'unknown', { preview: text, clipped })];
  }
  const type = typeof entry.type === 'string' ? entry.type : 'unknown';
  const timestamp = str(entry.timestamp);
  if (type === 'session') {
    return [base('session_meta', type, { timestamp, meta: { id: str(entry.id), cwd: str(entry.cwd) } })];
  }
  if (type === 'model_change') {
    return [base('model_change', type, { timestamp, model: { provider: str(entry.provider), modelId: str(entry.modelId) } })];
  }
  // The released runtime records the model as a custom entry rather than a model_change line.
  if (type === 'custom' && entry.customType === 'model-snapshot') {
    const data = isRecord(entry.data) ? entry.data : {};
    return [base('model_change', type, { timestamp, model: { provider: str(data.provider), modelId: str(data.modelId) } })];
  }
  // A turn the runtime gave up on before the agent said anything: a failed assistant turn.
  if (type === 'custom_message' && entry.customType === 'run-failed-before-reply') {
    const details = isRecord(entry.details) ? entry.details : {};
    const { text, clipped } = clip(contentText(entry.content), previewLimit);
    return [
      base('other', type, {
        role: 'assistant',
        timestamp,
        preview: text,
        clipped,
        isError: true,
        failedTurn: { runId: str(details.runId), error: str(details.error) },
      }),
    ];
  }
  if (type === 'compaction') {
    const { text, clipped } = clip(contentText(entry.summary ?? ''), previewLimit);
    return [base('compaction', type, { timestamp, preview: text || null, clipped })];
  }
  const message = isRecord(entry.message) ? entry.message : undefined;
  if (type === 'message' && message) {
    const role = str(message.role);
    if (role === 'user') {
      const { text, clipped } = clip(contentText(message.content), previewLimit);
      return [base('user_message', type, { role, timestamp, preview: text, clipped })];
    }
    if (role === 'assistant') {
      const blocks = Array.isArray(message.content) ? message.content : [message.content];
      const events = blocks.map((block, index) => assistantBlockEvent(base, block, index, timestamp, previewLimit));
      const assistant = assistantInfoOf(message);
      if (assistant && events[0]) events[0].assistant = assistant;
      return events;
    }
    if (role === 'toolResult') {
      const result = clip(contentText(message.content), previewLimit);
      const details = isRecord(message.details) ? message.details : {};
      return [
        base('tool_result', type, {
          role,
          timestamp,
          clipped: result.clipped,
          isError: message.isError === true,
          tool: {
            toolCallId: str(message.toolCallId),
            name: str(message.toolName),
            resultPreview: result.text,
            details: {
              status: details.status ?? null,
              exitCode: details.exitCode ?? null,
              durationMs: details.durationMs ?? null,
              cwd: details.cwd ?? null,
            },
            callLine: null,
          },
        }),
      ];
    }
    const { text, clipped } = clip(contentText(message.content), previewLimit);
    return [base('other', type, { role, timestamp, preview: text, clipped })];
  }
  const { text, clipped } = clip(JSON.stringify(entry), previewLimit);
  return [base('other', type, { timestamp, preview: text, clipped })];
}

function assistantBlockEvent(
  base: (kind: ReplayEventKind, type: string, extra?: Partial<ReplayEvent>) => ReplayEvent,
  block: unknown,
  index: number,
  timestamp: string | null,
  previewLimit: number | null,
): ReplayEvent {
  const common = { role: 'assistant', timestamp, block: index };
  const b = isRecord(block) ? block : { type: 'text', text: contentText(block) };
  if (b.type === 'thinking') {
    const { text, clipped } = clip(contentText([b]), previewLimit);
    return base('assistant_thinking', 'message', { ...common, preview: text, clipped });
  }
  if (b.type === 'toolCall') {
    const args = clip(typeof b.arguments === 'string' ? b.arguments : JSON.stringify(b.arguments ?? {}), previewLimit);
    return base('tool_call', 'message', {
      ...common,
      clipped: args.clipped,
      tool: { toolCallId: str(b.id), name: str(b.name), argsPreview: args.text, resultLine: null },
    });
  }
  const { text, clipped } = clip(contentText([b]), previewLimit);
  return base('other', 'message', { ...common, preview: text, clipped });
}

/** The toolCallIds this parsed line calls (assistant toolCall blocks). */
export function toolCallIdsOf(parsed: ParsedLine): string[] {
  if (!parsed.ok || !isRecord(parsed.value)) return [];
  const message = parsed.value.message;
  if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return [];
  return message.content
    .filter((b) => isRecord(b) && b.type === 'toolCall' && typeof b.id === 'string')
    .map((b) => (b as { id: string }).id);
}

/** The toolCallId a parsed tool-result line answers, if it is one. */
export function toolResultIdOf(parsed: ParsedLine): string | undefined {
  if (!parsed.ok || !isRecord(parsed.value)) return undefined;
  const message = parsed.value.message;
  return isRecord(message) && message.role === 'toolResult' && typeof message.toolCallId === 'string' ? message.toolCallId : undefined;
}
