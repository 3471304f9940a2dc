/**
 * The agent runtime as the core sees it (docs/runtime-contract.md): one CLI call at a
 * time, answered with the parsed JSON document it printed, and a read-only state directory.
 * Adapters throw RuntimeCallError (core/errors.ts) for every failure kind of the contract.
 */
export interface Runtime {
  /**
   * Runs `RUNTIME_CLI ...args` (no shell) and returns its JSON document: an object, or a top-level
   * array where the released runtime prints one (`agents list`). With `output: 'text'` the call prints
   * plain text, answered as `{text, warnings}` (stdout, and stderr's lines).
   */
  run(args: readonly string[], options?: RuntimeCallOptions): Promise<RuntimeDocument>;
  /** Absolute path of RUNTIME_STATE_DIR (sessions and transcripts); read-only. */
  readonly stateDir: string;
  /**
   * The file seam: session indexes and transcripts under stateDir. Optional so that in-process
   * fakes need not provide it; the session reader answers 502 (unavailable) without it.
   */
  readonly files?: RuntimeStateFiles;
}

/** What a runtime call printed: one JSON object, or one JSON array. */
export type RuntimeDocument = Record<string, unknown> | unknown[];

export interface RuntimeCallOptions {
  /** 'text' for a call that prints plain text instead of JSON; 'json' (the default) otherwise. */
  output?: 'json' | 'text';
}

/**
 * Read-only access to RUNTIME_STATE_DIR. Every id passed here has already been validated by
 * the core (core/runtime/ids.ts); adapters check again that no path leaves the directory.
 */
export interface RuntimeStateFiles {
  /**
   * Where sessions come from: `files` (the state directory of the contract, the fake, installs before
   * 2026.7.2) or `gateway` (the released runtime's gateway, which keeps them in its own database).
   * Undefined counts as `files`.
   */
  readonly way?: 'files' | 'gateway';
  /** Whether the source answers; throws RuntimeCallError when it does not. Optional: files need no check. */
  check?(): Promise<void>;
  /** Names of the directories under agents/ (unsorted); empty when there is none. */
  listAgentIds(): Promise<string[]>;
  /**
   * The raw text of agents/<agentId>/sessions/sessions.json, or undefined when the file is absent;
   * through the gateway, an index of that shape built from its session list (undefined: no session).
   */
  readSessionIndex(agentId: string): Promise<string | undefined>;
  /**
   * The lines of agents/<agentId>/sessions/<sessionId>.jsonl, read as a stream, or undefined when
   * the file is absent (through the gateway: the session's history written back as lines,
   * core/runtime/gateway-history.ts). The stream stops at the last complete line within the byte cap.
   */
  openTranscript(agentId: string, sessionId: string): Promise<TranscriptStream | undefined>;
  /**
   * The transcript with an index the core builds, so a page reads only its own lines: `indexer` visits every line once per
   * file version, and the adapter keeps the state with each line's byte offsets, in a bounded cache
   * keyed by file, size and modification time; a file that only grew is visited from where the last
   * visit stopped. Lines are then read by their offsets alone. Optional: without it the core scans
   * the stream (openTranscript) on every request. Undefined when the transcript is absent.
   */
  indexTranscript?<State>(
    agentId: string,
    sessionId: string,
    indexer: TranscriptIndexer<State>,
  ): Promise<IndexedTranscript<State> | undefined>;
  /**
   * Calls `onChange` whenever the transcript may have grown, until the returned stop is called: a
   * hint only (the reader re-reads after its cursor), so a spurious call costs one read and a missed
   * one is made up by the adapter's bounded fallback re-read. Optional: without it a tail re-reads
   * at the fallback pace alone.
   */
  watchTranscript?(agentId: string, sessionId: string, onChange: () => void): TranscriptWatch;
}

/** A transcript watch: `stop` releases what the adapter holds for it (a file watcher, a connection, a timer). */
export interface TranscriptWatch {
  stop(): void;
}

/** What the core keeps about a transcript, built in one pass over its lines. */
export interface TranscriptIndexer<State> {
  /** Names the kind of index: states of different indexers are cached apart. */
  readonly name: string;
  start(): State;
  /** Each line in order (1-based), once; lines appended later are visited when the file has grown. */
  visit(state: State, lineNo: number, text: string): void;
  /**
   * The same visit from the line's UTF-8 bytes [start, end) of `bytes`, where the adapter has them:
   * false when the line needs its text, which `visit` is then given instead.
   */
  visitBytes?(state: State, lineNo: number, bytes: Uint8Array, start: number, end: number): boolean;
}

export interface IndexedTranscript<State> {
  state: State;
  /** Lines of the readable window (the lines openTranscript would yield). */
  totalLines: number;
  /** As TranscriptStream.truncated. */
  truncated: boolean;
  /** Lines from..to (1-based, inclusive, clamped to totalLines), exactly as openTranscript yields them. */
  readLines(from: number, to: number): Promise<string[]>;
}

export interface TranscriptStream {
  /** One string per physical line, in order (line numbers start at 1); never the whole file at once. */
  lines: AsyncIterable<string>;
  /** True when the file is larger than the cap, so lines past it are not read. */
  truncated: boolean;
  /** Releases the file early (a consumer that stops before the end). Safe to call twice. */
  close(): void;
}

/** Legacy scheduled-job definition files (spec 01 POST/DELETE /api/cron/jobs), one JSON file per job. */
export interface LegacyJobFiles {
  /** Every readable definition; unreadable files are reported by name rather than failing the list. */
  list(): Promise<{ jobs: Array<{ id: string; definition: unknown }>; unreadable: string[] }>;
  /** Writes the definition atomically; false when a job of that id already exists. */
  create(id: string, definition: Record<string, unknown>): Promise<boolean>;
  /** Removes the definition; false when there was none. */
  remove(id: string): Promise<boolean>;
}

/** A small JSON file under DATA_DIR that something outside the server maintains (the citation queue). */
export interface DataFile {
  /** The file's text, or undefined when it does not exist. */
  read(): Promise<string | undefined>;
}
