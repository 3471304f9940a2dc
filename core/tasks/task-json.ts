import { rowOfStateJson } from '../state-json';
import { taskColumns } from './task';

/**
 * A task's JSON text, kept by PostgreSQL so that lists are built in SQL: for a listing of tens of
 * thousands of tasks, parsing every row into JavaScript values (a Date per timestamp, an array per
 * uuid[]) only to serialize them again was most of the work, and building the text in the
 * statement then cost PostgreSQL ~5.5 µs per task, more than the bare query and the driver's
 * parsing together. So each row keeps it: `json_segments`, a stored generated column (migrations
 * 1050 to 1070), holds the task's whole text when PostgreSQL can write all of it (metadata a flat
 * object, efforts null or whole numbers), else the plain columns' `"name":value` runs (compact, escaped as
 * JSON.stringify escapes, timestamps as Date.prototype.toISOString writes them), one run per
 * stretch of such columns, separated by chr(1); the columns whose JSON PostgreSQL writes
 * differently (jsonb prints `{"a": 1}` with spaces and keeps `1.0`; float8 prints `1e-07`) are then
 * read as values, stringified here and spliced in between. The text is byte for byte what
 * JSON.stringify of the task row answers (test/handlers/tasks-json-text.test.ts holds it so).
 */

/**
 * The columns of the tasks table (by their names there) whose JSON is not to_json's, as json_segments
 * writes them: `iso`, a timestamp, formatted as toISOString formats it; `uuid` and `int`, written by
 * their own text (what to_json writes, without its escaping pass); `node`, left out of the runs, read
 * as a value and stringified here. Every other column's JSON is to_json's (text and arrays of text
 * and uuid write the same bytes as JSON.stringify). A column added to the table is written by a new
 * version of task_json_segments, and listed here when its kind is one of these.
 */
export const taskColumnKinds: Readonly<Record<string, 'iso' | 'node' | 'uuid' | 'int'>> = {
  id: 'uuid',
  project_id: 'uuid',
  parent_task_id: 'uuid',
  retry_count: 'int',
  lock_generation: 'int',
  due_date: 'iso',
  start_date: 'iso',
  created_at: 'iso',
  updated_at: 'iso',
  completed_at: 'iso',
  deleted_at: 'iso',
  archived_at: 'iso',
  locked_at: 'iso',
  status_updated_at: 'iso',
  lease_expires_at: 'iso',
  estimated_effort: 'node',
  actual_effort: 'node',
  metadata: 'node',
};

/** The output names and source expressions of taskColumns, in order (`lock_generation AS lock_token` included). */
const columns = taskColumns.split(',').map((part) => {
  const [source, , alias] = part.trim().split(/\s+/);
  return { source: source!, name: alias ?? source! };
});

/** Alternating runs of columns written by PostgreSQL and single spliced ones, in column order (the runs as migration 1050 writes them). */
type Piece = { kind: 'segment' } | { kind: 'node'; alias: string; name: string; source: string };

const pieces: Piece[] = [];
for (const column of columns) {
  if (taskColumnKinds[column.source] === 'node')
    pieces.push({ kind: 'node', name: column.name, source: column.source, alias: `json_v${pieces.length}` });
  else if (pieces[pieces.length - 1]?.kind !== 'segment') pieces.push({ kind: 'segment' });
}

/** Separates the runs of json_segments: JSON text never holds it raw (JSON.stringify escapes control characters). */
const RUN_END = '\u0001';
/** How a whole stored text begins; runs begin with `"id":`. */
const OPEN_BRACE = 0x7b;

/** The select list of a task's JSON pieces over the tasks row aliased `t`: its stored text (whole, or runs) and each column the runs leave out, as its value. */
export const taskJsonSelect = [
  't.json_segments',
  ...pieces.flatMap((piece) => (piece.kind === 'node' ? [`t.${piece.source} AS ${piece.alias}`] : [])),
].join(', ');

/** A row of taskJsonSelect's columns. */
export type TaskJsonRow = Record<string, unknown>;

/**
 * The task's JSON text from a row of taskJsonSelect: the stored text when it is whole (it begins
 * with `{`: migrations 1060 and 1070 write the whole text when no value needs this process), else the stored
 * runs joined with the spliced values.
 */
export function taskJsonText(row: TaskJsonRow): string {
  const runs = row.json_segments as string;
  if (runs.charCodeAt(0) === OPEN_BRACE) return runs;
  let text = '{';
  let from = 0;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i > 0) text += ',';
    if (piece.kind === 'node') {
      text += `"${piece.name}":${JSON.stringify(row[piece.alias])}`;
    } else {
      const end = runs.indexOf(RUN_END, from);
      text += end === -1 ? runs.slice(from) : runs.slice(from, end);
      from = end + 1;
    }
  }
  return `${text}}`;
}

/**
 * Appends JSON texts to `pieces`, separated by commas: the items of a list whose brackets the caller
 * writes. Answers built as pieces are sent as their bytes without being joined (handlers/middleware/responses.ts jsonPieces).
 */
export function pushJsonItems(pieces: string[], items: readonly string[]): void {
  for (let i = 0; i < items.length; i++) {
    if (i > 0) pieces.push(',');
    pieces.push(items[i]!);
  }
}

const outputNames = columns.map((c) => c.name);
const timestampNames: ReadonlySet<string> = new Set(columns.filter((c) => taskColumnKinds[c.source] === 'iso').map((c) => c.name));

/** The task of its JSON as built in SQL (task_state_json, migration 1000), as the driver answers the row. */
export function taskOfStateJson(json: Record<string, unknown>): Record<string, unknown> {
  return rowOfStateJson(json, outputNames, timestampNames);
}
