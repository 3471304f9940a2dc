import * as z from 'zod';
import { ValidationError } from '../errors';
import type { Db, Deps } from '../ports';
import { queryBoolean, queryInt, parseQuery } from '../query-params';
import { requireDb } from '../storage';
import { uuidSchema } from '../validation';
import { auditColumns, type AuditRecord } from './audit-record';

const day = z.iso.date({ message: 'must be a date YYYY-MM-DD' });
const text = (max: number) => z.string().min(1, 'must not be empty').max(max, `at most ${max} characters`);

/** GET /api/audit filters (spec 01 "Audit"). Dates are whole UTC days; end_date is inclusive. */
export const auditQuerySchema = z.strictObject({
  q: text(200).optional(),
  actor: text(200).optional(),
  action: text(200).optional(),
  task_id: uuidSchema.optional(),
  project_id: uuidSchema.optional(),
  entity_type: text(100).optional(),
  start_date: day.optional(),
  end_date: day.optional(),
  governance_only: queryBoolean.default(false),
  limit: queryInt(1, 500).default(100),
  offset: queryInt(0, 10_000_000).default(0),
});
export type AuditFilter = Partial<z.infer<typeof auditQuerySchema>>;

/** `q` is matched literally: LIKE wildcards in it are escaped. */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * How many of the rows still waiting for a fold (audit_search_pending) a `q` search computes the
 * text of: the newest ones. Measured on this machine, the text of 200 rows costs a few ms, about
 * what a search of the index costs, and a queue of 100,000 rows half a second or more; a larger
 * backlog (a fold that has not kept up, or none running) is left out and the answer says so
 * (`unsearched`) rather than growing with the backlog (docs/adr/0008-deferred-audit-search.md).
 */
export const PENDING_ROWS_SEARCHED = 200;

/** Pending rows a search counts past PENDING_ROWS_SEARCHED to say how many it left out; beyond it, "at least". */
export const UNSEARCHED_COUNT_CAP = 10_000;

/**
 * `q` over the searchable text (migration 1020): the trigram index of audit_search for the rows a
 * fold has indexed, the text computed for the newest pending ones. One snapshot sees each committed
 * audit row in exactly one of the two, so a row is found from the moment it commits while the
 * backlog is at most PENDING_ROWS_SEARCHED rows. The pending ids are read into an array first, so
 * that the plan looks each one up by key whatever the backlog, never scanning audit_log.
 */
const searchTextMatches = (p: string) =>
  `id IN (SELECT s.audit_id FROM audit_search s WHERE s.search_text LIKE ${p}
           UNION ALL
          SELECT x.id FROM audit_log x
           WHERE x.id = ANY(ARRAY(SELECT w.audit_id FROM audit_search_pending w ORDER BY w.audit_id DESC LIMIT ${PENDING_ROWS_SEARCHED}))
             AND audit_search_text(x.actor, x.action, x.entity_type, x.old_value, x.new_value) LIKE ${p})`;

/** Pending rows older than the newest PENDING_ROWS_SEARCHED, counted up to UNSEARCHED_COUNT_CAP + 1. */
const unsearchedSql = `SELECT count(*)::int AS n FROM (
  SELECT 1 FROM audit_search_pending ORDER BY audit_id DESC OFFSET ${PENDING_ROWS_SEARCHED} LIMIT ${UNSEARCHED_COUNT_CAP + 1}) b`;

/**
 * The WHERE clause of an audit search. Each filter is served by an index of audit_log: actor,
 * action, task, project and entity indexes; the trigram index of audit_search for q; the partial
 * governance index (migration 0100) for governance_only, whose predicate is repeated verbatim.
 */
export function auditWhere(filter: AuditFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const clauses: string[] = [];
  const add = (clause: (p: string) => string, value: unknown) => {
    params.push(value);
    clauses.push(clause(`$${params.length}`));
  };
  if (filter.q) add(searchTextMatches, likePattern(filter.q));
  if (filter.actor) add((p) => `actor = ${p}`, filter.actor);
  if (filter.action) add((p) => `action = ${p}`, filter.action);
  if (filter.task_id) add((p) => `task_id = ${p}`, filter.task_id);
  if (filter.project_id) add((p) => `project_id = ${p}`, filter.project_id);
  if (filter.entity_type) add((p) => `entity_type = ${p}`, filter.entity_type);
  if (filter.start_date) add((p) => `timestamp >= ${p}::date`, filter.start_date);
  if (filter.end_date) add((p) => `timestamp < ${p}::date + 1`, filter.end_date);
  if (filter.governance_only) clauses.push(`action LIKE 'action.%'`);
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

/** The page query of a search, newest first; exported so that the index test EXPLAINs what runs. */
export function auditPageSql(filter: AuditFilter, limit: number, offset: number): { sql: string; params: unknown[] } {
  const { where, params } = auditWhere(filter);
  return {
    sql: `SELECT ${auditColumns} FROM audit_log ${where} ORDER BY timestamp DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    params,
  };
}

export function parseAuditQuery(query: unknown): z.infer<typeof auditQuerySchema> {
  return refuseReversedRange(parseQuery(auditQuerySchema, query));
}

/** A date range that ends before it starts is a 400, not an empty answer (GET /api/audit and its CSV). */
export function refuseReversedRange<F extends AuditFilter>(filter: F): F {
  if (filter.start_date && filter.end_date && filter.start_date > filter.end_date) {
    throw new ValidationError('start_date must not be after end_date', [{ path: 'start_date', message: 'after end_date' }]);
  }
  return filter;
}

/**
 * One page of GET /api/audit. `unsearched` is how many audit rows a `q` search could not look at
 * because they wait for a fold beyond the newest PENDING_ROWS_SEARCHED (0 when it saw every row;
 * `"10000+"` past the count's cap): the answer is then exact for every row but those.
 */
export interface AuditPage {
  records: AuditRecord[];
  unsearched: number | `${number}+`;
}

/** GET /api/audit: audit records matching every given filter, newest first, one page. */
export async function listAudit(deps: Pick<Deps, 'storage'>, query: unknown): Promise<AuditPage> {
  const filter = parseAuditQuery(query);
  const { sql, params } = auditPageSql(filter, filter.limit, filter.offset);
  const db = requireDb(deps.storage);
  const [page, backlog] = await Promise.all([
    db.query<AuditRecord>(sql, params),
    filter.q ? db.query<{ n: number }>(unsearchedSql) : undefined,
  ]);
  const n = backlog?.rows[0]?.n ?? 0;
  return { records: page.rows, unsearched: n > UNSEARCHED_COUNT_CAP ? `${UNSEARCHED_COUNT_CAP}+` : n };
}

/** Rows one fold statement moves: about half a second of trigram work for dispatcher audit rows. */
const FOLD_BATCH = 5_000;

/**
 * Indexes pending audit rows for `q` (migration 1020), batch by batch, at most `maxRows` of them
 * (each dispatcher pass: the rows the writes since the last pass left; a restore or an import: all
 * it wrote); answers how many. Each batch commits on its own, so a fold holds no lock on the rows
 * it is not moving.
 */
export async function foldAuditSearch(db: Db, maxRows = 20_000): Promise<number> {
  let folded = 0;
  while (folded < maxRows) {
    const batch = Math.min(FOLD_BATCH, maxRows - folded);
    const { rows } = await db.query<{ n: number }>('SELECT audit_search_fold($1) AS n', [batch]);
    const moved = rows[0]?.n ?? 0;
    folded += moved;
    if (moved < batch) break;
  }
  return folded;
}
