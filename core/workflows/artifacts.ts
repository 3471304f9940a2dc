import * as z from 'zod';
import { parseQuery } from '../query-params';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { pageAndTotal } from '../list-page';
import { patchRow } from '../patch-row';
import type { Db, Deps } from '../ports';
import { requireDb } from '../storage';
import { isRecord } from '../runtime/payload';
import { jsonObjectSchema, parseId, parseInput, uuidSchema, withAliases } from '../validation';
import { actorSchema, agentActorSchema, sessionKeySchema } from './run';
import { runStatusGroups } from './run-status';
import { assertSession, lockRun } from './run-store';

export const artifactTypes = ['url', 'file', 'text'] as const;

/** An artifact as the API answers it (spec 03 artifacts). */
export const artifactSchema = z.object({
  id: z.string(),
  workflow_run_id: z.string(),
  artifact_type: z.enum(artifactTypes),
  title: z.string().nullable(),
  uri: z.string().nullable(),
  content: z.string().nullable(),
  status: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Artifact = z.infer<typeof artifactSchema>;
export const artifactColumns = 'id, workflow_run_id, artifact_type, title, uri, content, status, metadata, created_at, updated_at';

const title = z.string().trim().min(1).max(500);
const uri = z.string().trim().min(1).max(4000);
const content = z.string().max(1_000_000, 'at most 1,000,000 characters');
const status = z.string().trim().min(1).max(50);
const httpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** url artifacts carry an http(s) uri, file artifacts a uri (path or URL), text artifacts content. */
export const registerArtifactSchema = z
  .strictObject({
    session_id: sessionKeySchema,
    artifact_type: z.enum(artifactTypes, { message: 'must be url, file or text' }),
    title: title.optional(),
    uri: uri.optional(),
    content: content.optional(),
    status: status.default('active'),
    metadata: jsonObjectSchema.default({}),
    actor: agentActorSchema,
  })
  .superRefine((a, ctx) => {
    if (a.artifact_type === 'text' && a.content === undefined)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'a text artifact needs content' });
    if (a.artifact_type !== 'text' && a.uri === undefined)
      ctx.addIssue({ code: 'custom', path: ['uri'], message: `a ${a.artifact_type} artifact needs a uri` });
    if (a.artifact_type === 'url' && a.uri !== undefined && !httpUrl(a.uri))
      ctx.addIssue({ code: 'custom', path: ['uri'], message: 'must be an http or https URL' });
  });

/**
 * PATCH /api/artifacts/:id (spec: body not shown): metadata (merged), status, title, uri, content,
 * artifact_type; `label` is the original front end's name for `title`, and its edit form sends
 * `artifact_type: ""` for a type left untouched, which is taken as absent.
 */
export const updateArtifactSchema = withAliases(
  { label: 'title' },
  z.preprocess(
    (body) => (isRecord(body) && body.artifact_type === '' ? withoutKey(body, 'artifact_type') : body),
    z
      .strictObject({
        artifact_type: z.enum(artifactTypes, { message: 'must be url, file or text' }),
        title: title.nullable(),
        uri: uri,
        content: content.nullable(),
        status,
        metadata: jsonObjectSchema,
        actor: actorSchema,
      })
      .partial()
      .refine((p) => Object.keys(p).some((k) => k !== 'actor'), {
        message: 'name at least one of title, uri, content, status, metadata, artifact_type',
      }),
  ),
);

function withoutKey(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = body;
  return rest;
}

export const listArtifactsQuerySchema = z.strictObject({
  workflow_run_id: uuidSchema.optional(),
  artifact_type: z.enum(artifactTypes, { message: 'must be url, file or text' }).optional(),
  status: status.optional(),
  limit: z.coerce.number({ message: 'must be a number' }).int().min(1).max(500).default(200),
});

function artifactEvent(action: string, a: Artifact) {
  return { name: 'run-updated', channel: 'stream' as const, payload: { action, runId: a.workflow_run_id, artifactId: a.id } };
}

/** POST /api/workflow-runs/:id/artifacts: the holding session registers an artifact of its run. */
export async function registerArtifact(deps: Deps, rawRunId: unknown, body: unknown): Promise<Artifact> {
  const input = parseInput(registerArtifactSchema, body ?? {}, 'artifact');
  const runId = parseId(rawRunId);
  return requireDb(deps.storage).transaction(async (tx) => {
    const run = await lockRun(tx, runId);
    assertSession(run, input.session_id);
    if (!(runStatusGroups.working as readonly string[]).includes(run.status)) {
      throw new ConflictError(`workflow run ${run.id} is ${run.status}: artifacts are registered while it is claimed or running`, {
        status: run.status,
      });
    }
    const now = deps.clock.now();
    const { rows } = await tx.query<Artifact>(
      `INSERT INTO workflow_artifacts (id, workflow_run_id, artifact_type, title, uri, content, status, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${artifactColumns}`,
      [
        deps.ids.uuid(),
        run.id,
        input.artifact_type,
        input.title ?? null,
        input.uri ?? null,
        input.content ?? null,
        input.status,
        JSON.stringify(input.metadata),
        now,
      ],
    );
    const artifact = rows[0]!;
    await recordChange(deps, tx, {
      actor: input.actor ?? run.owner_agent_id ?? input.session_id,
      action: 'created',
      entityType: 'workflow_artifact',
      entityId: artifact.id,
      taskId: run.task_id,
      newValue: artifact,
      event: artifactEvent('artifact_created', artifact),
    });
    return artifact;
  });
}

export async function listArtifacts(
  deps: Pick<Deps, 'storage'>,
  query: unknown,
): Promise<{ artifacts: Artifact[]; total: number; truncated: boolean }> {
  const q = parseQuery(listArtifactsQuerySchema, query);
  const { rows, total, truncated } = await pageAndTotal<Artifact>(
    requireDb(deps.storage),
    {
      select: artifactColumns,
      from: 'workflow_artifacts',
      where:
        '($1::uuid IS NULL OR workflow_run_id = $1) AND ($2::text IS NULL OR artifact_type = $2) AND ($3::text IS NULL OR status = $3)',
      orderBy: 'created_at DESC, id DESC',
    },
    [q.workflow_run_id ?? null, q.artifact_type ?? null, q.status ?? null],
    q.limit,
  );
  return { artifacts: rows, total, truncated };
}

/** After the patch: a url artifact keeps an http(s) uri, a file artifact a uri, a text artifact content. */
function assertTypeRules(patch: Partial<Pick<Artifact, 'artifact_type' | 'uri' | 'content'>>, before: Artifact): void {
  const type = patch.artifact_type ?? before.artifact_type;
  const uriAfter = patch.uri ?? before.uri;
  if (type === 'url' && (uriAfter === null || !httpUrl(uriAfter))) {
    throw new ValidationError('uri: a url artifact keeps an http or https URL', [{ path: 'uri', message: 'must be an http or https URL' }]);
  }
  if (type === 'file' && uriAfter === null)
    throw new ValidationError('uri: a file artifact needs a uri', [{ path: 'uri', message: 'required for a file artifact' }]);
  if (type === 'text' && (patch.content === undefined ? before.content : patch.content) === null) {
    throw new ValidationError('content: a text artifact needs content', [{ path: 'content', message: 'required for a text artifact' }]);
  }
}

async function lockArtifact(tx: Db, id: string): Promise<Artifact> {
  const { rows } = await tx.query<Artifact>(`SELECT ${artifactColumns} FROM workflow_artifacts WHERE id = $1 FOR UPDATE`, [id]);
  if (!rows[0]) throw new NotFoundError(`artifact ${id} not found`);
  return rows[0];
}

export async function updateArtifact(deps: Deps, rawId: unknown, body: unknown): Promise<Artifact> {
  const { actor = OPERATOR_ACTOR, ...patch } = parseInput(updateArtifactSchema, body ?? {}, 'artifact update');
  const id = parseId(rawId);
  return requireDb(deps.storage).transaction(async (tx) => {
    const before = await lockArtifact(tx, id);
    // the type rules judge a patch that changes the type, uri or content; a metadata, status or
    // title change leaves them as they were (a restored or imported text artifact has no content)
    if (patch.artifact_type !== undefined || patch.uri !== undefined || patch.content !== undefined) assertTypeRules(patch, before);
    const values: Record<string, unknown> = { ...patch };
    if (patch.metadata) values.metadata = JSON.stringify({ ...before.metadata, ...patch.metadata });
    const artifact = (await patchRow<Artifact>(tx, {
      table: 'workflow_artifacts',
      key: id,
      set: values,
      at: deps.clock.now(),
      returning: artifactColumns,
    }))!;
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'workflow_artifact',
      entityId: id,
      oldValue: before,
      newValue: artifact,
      event: artifactEvent('artifact_updated', artifact),
    });
    return artifact;
  });
}

export async function deleteArtifact(deps: Deps, rawId: unknown): Promise<{ deleted: true; id: string }> {
  const id = parseId(rawId);
  await requireDb(deps.storage).transaction(async (tx) => {
    const before = await lockArtifact(tx, id);
    await tx.query('DELETE FROM workflow_artifacts WHERE id = $1', [id]);
    await recordChange(deps, tx, {
      actor: OPERATOR_ACTOR,
      action: 'deleted',
      entityType: 'workflow_artifact',
      entityId: id,
      oldValue: before,
      event: artifactEvent('artifact_deleted', before),
    });
  });
  return { deleted: true, id };
}
