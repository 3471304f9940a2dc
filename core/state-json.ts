/**
 * An entity's state JSON as PostgreSQL builds it (task_state_json, run_state_json: migrations
 * 1000 and 1010) turned back into the row the driver answers: members in the query's column
 * order, timestamps as Dates (JSON holds their ISO text).
 */
export function rowOfStateJson(
  json: Record<string, unknown>,
  columns: readonly string[],
  timestamps: ReadonlySet<string>,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    const value = json[column];
    row[column] = timestamps.has(column) && typeof value === 'string' ? new Date(value) : value;
  }
  return row;
}
