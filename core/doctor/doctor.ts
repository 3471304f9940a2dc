import * as z from 'zod';
import { defaultLeasePolicy, type LeasePolicy } from '../agents/leases';
import { recordChange } from '../audit/record-change';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';
import { SYSTEM_ACTOR } from '../workflows/governance';
import { doctorChecks, doctorKinds, type DoctorCheck } from './checks';

/** Rows listed per kind; `count` is always the full number. */
const SHOWN_PER_KIND = 100;

export const doctorFindingSchema = z.object({
  kind: z.string(),
  description: z.string(),
  suggested_repair: z.string(),
  count: z.number().int(),
  truncated: z.boolean(),
  items: z.array(z.object({ id: z.string(), detail: z.unknown() })),
});
export type DoctorFinding = z.infer<typeof doctorFindingSchema>;

export const doctorReportSchema = z.object({
  checked_at: z.date(),
  /** Findings over every kind. */
  total: z.number().int(),
  /** Every kind the doctor checks, found or not, in a fixed order. */
  findings: z.array(doctorFindingSchema),
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;

/** The leading `values` a statement names ($1..$n): PostgreSQL refuses parameters a statement does not use. */
function boundTo(sql: string, values: readonly unknown[]): unknown[] {
  const highest = Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return values.slice(0, highest);
}

async function find(db: Db, check: DoctorCheck, now: Date, lock: boolean) {
  const sql = check.findSql(lock);
  const { rows } = await db.query<{ id: string; detail: unknown }>(sql, boundTo(sql, [now]));
  return rows;
}

/** GET /api/doctor: every inconsistency the checks know, read-only. */
export async function doctorReport(deps: Pick<Deps, 'storage' | 'clock'>): Promise<DoctorReport> {
  const db = requireDb(deps.storage);
  const now = deps.clock.now();
  const findings: DoctorFinding[] = [];
  for (const check of doctorChecks) {
    const rows = await find(db, check, now, false);
    findings.push({
      kind: check.kind,
      description: check.description,
      suggested_repair: check.suggestedRepair,
      count: rows.length,
      truncated: rows.length > SHOWN_PER_KIND,
      items: rows.slice(0, SHOWN_PER_KIND),
    });
  }
  return { checked_at: now, total: findings.reduce((n, f) => n + f.count, 0), findings };
}

const repairSchema = z.strictObject({
  kinds: z
    .array(z.enum(doctorKinds as [string, ...string[]], { message: `must be one of ${doctorKinds.join(', ')}` }))
    .min(1, 'name at least one kind, or leave kinds out for all')
    .optional(),
  dry_run: z.boolean({ message: 'must be true or false' }).default(false),
});

export const doctorRepairSchema = z.object({
  dry_run: z.boolean(),
  repaired: z.array(z.object({ kind: z.string(), count: z.number().int(), ids: z.array(z.string()) })),
  total: z.number().int(),
});
export type DoctorRepair = z.infer<typeof doctorRepairSchema>;

/**
 * POST /api/doctor/repair {kinds?, dry_run?}: repairs each kind in its own transaction (a kind
 * that fails leaves the kinds before it repaired), each changed row audited `doctor.<kind>` by
 * system (bulk kinds: one audit row listing the ids). dry_run answers what would change and writes nothing.
 */
export async function repairDoctorFindings(deps: Deps, body: unknown, policy: LeasePolicy = defaultLeasePolicy): Promise<DoctorRepair> {
  const input = parseInput(repairSchema, body ?? {}, 'doctor repair');
  const db = requireDb(deps.storage);
  const wanted = new Set(input.kinds ?? doctorKinds);
  const repaired: DoctorRepair['repaired'] = [];
  for (const check of doctorChecks.filter((c) => wanted.has(c.kind))) {
    const ids = input.dry_run
      ? (await find(db, check, deps.clock.now(), false)).map((r) => r.id)
      : await db.transaction((tx) => repairKind(deps, tx, check, policy));
    repaired.push({ kind: check.kind, count: ids.length, ids });
  }
  return { dry_run: input.dry_run, repaired, total: repaired.reduce((n, r) => n + r.count, 0) };
}

async function repairKind(deps: Deps, tx: Db, check: DoctorCheck, policy: LeasePolicy): Promise<string[]> {
  const now = deps.clock.now();
  const found = await find(tx, check, now, true);
  if (found.length === 0) return [];
  const { rows } = await tx.query<{ id: string; after: unknown }>(
    check.repairSql,
    boundTo(check.repairSql, [now, found.map((r) => r.id), policy.defaultLeaseSeconds]),
  );
  const before = new Map(found.map((r) => [r.id, r.detail]));
  const action = `doctor.${check.kind}`;
  if (check.bulk) {
    await recordChange(deps, tx, {
      actor: SYSTEM_ACTOR,
      action,
      entityType: check.entityType,
      entityId: check.kind,
      oldValue: { count: rows.length, ids: rows.map((r) => r.id) },
    });
  } else {
    for (const row of rows) {
      await recordChange(deps, tx, {
        actor: SYSTEM_ACTOR,
        action,
        entityType: check.entityType,
        entityId: row.id,
        taskId: check.entityType === 'task' ? row.id : null,
        oldValue: before.get(row.id),
        newValue: row.after,
        event: check.event?.(row.id),
      });
    }
  }
  return rows.map((r) => r.id);
}
