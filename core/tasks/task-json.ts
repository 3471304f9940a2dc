import { rowOfStateJson } from '../state-json';
import { taskColumns } from './task';

/**
 * A task's JSON text, built mostly by PostgreSQL (issue 14, lists built in SQL): for a listing of
 * tens of thousands of tasks, parsing every row into JavaScript values (a Date per timestamp, an
 * array per uuid[]) only to serialize them again is most of the work. The statement answers the
 * text of the row's plain columns in segments, each concatenated from its values' to_json (compact,
 * escaped as JSON.stringify escapes; timestamps formatted as Date.prototype.toISOString formats
 * them), and the columns whose JSON PostgreSQL writes differently (jsonb prints `{"a": 1}` with
 * spaces and keeps `1.0`; float8 prints `1e-07`) as values, which are stringified here and spliced
 * in place. (Segments were row_to_json over a subquery each, which only named the columns: a page of
 * 1,000 tasks executed in ~3.9 ms, ~3.5 ms concatenated.) The text is byte for byte what
 * JSON.stringify of the task row answers (test/handlers/tasks-json-text.test.ts holds it so).
 */

/**
 * The columns of the tasks table (by their names there) whose JSON is not to_json's: `iso`, a timestamp, formatted as
 * toISOString formats it; `node`, a value stringified here; `uuid` and `int`, written by their own
 * text (what to_json writes, without its escaping pass: ~15% of a page's time). Every other column's
 * JSON is to_json's (text and arrays of text and uuid write the same bytes as JSON.stringify).
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

/** Alternating runs of SQL-written columns and single spliced ones, in column order. */
type Piece = { kind: 'segment'; alias: string; columns: typeof columns } | { kind: 'node'; alias: string; name: string; source: string };

const pieces: Piece[] = [];
for (const column of columns) {
  if (taskColumnKinds[column.source] === 'node') {
    pieces.push({ kind: 'node', name: column.name, source: column.source, alias: `json_v${pieces.length}` });
    continue;
  }
  const last = pieces[pieces.length - 1];
  if (last?.kind === 'segment') last.columns.push(column);
  else pieces.push({ kind: 'segment', alias: `json_s${pieces.length}`, columns: [column] });
}

/** A column's JSON value as text, `null` for NULL: a timestamp as toISOString writes it, anything else as to_json writes it. */
function jsonValueOf(column: { source: string; name: string }): string {
  const value = `t.${column.source}`;
  switch (taskColumnKinds[column.source]) {
    case 'iso':
      return `coalesce('"' || to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
    case 'uuid':
      return `coalesce('"' || ${value} || '"', 'null')`;
    case 'int':
      return `coalesce(${value}::text, 'null')`;
    default:
      return `coalesce(to_json(${value})::text, 'null')`;
  }
}

/**
 * The select list of a task's JSON pieces over the tasks row aliased `t`: each segment its
 * `"name":value,…` text (no braces: taskJsonText joins it with the spliced values), each spliced
 * column as its value.
 */
export const taskJsonSelect = pieces
  .map((piece) =>
    piece.kind === 'node'
      ? `t.${piece.source} AS ${piece.alias}`
      : // each name with the comma before it as one literal: every || copies the text built so far
        `${piece.columns.map((c, i) => `'${i > 0 ? ',' : ''}${JSON.stringify(c.name)}:' || ${jsonValueOf(c)}`).join(' || ')} AS ${piece.alias}`,
  )
  .join(', ');

/** A row of taskJsonSelect's columns. */
export type TaskJsonRow = Record<string, unknown>;

/** The task's JSON text from a row of taskJsonSelect: the segments joined with the spliced values. */
export function taskJsonText(row: TaskJsonRow): string {
  let text = '{';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i > 0) text += ',';
    text += piece.kind === 'node' ? `"${piece.name}":${JSON.stringify(row[piece.alias])}` : (row[piece.alias] as string);
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
