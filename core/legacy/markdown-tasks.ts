import * as z from 'zod';
import { OPERATOR_ACTOR } from '../actors';
import { recordChange } from '../audit/record-change';
import type { Deps, MarkdownTaskFile } from '../ports';
import { requireDb } from '../storage';
import { parseInput } from '../validation';

/**
 * The legacy markdown task list (spec 01 GET and POST /api/tasks): one file under DATA_DIR that
 * older clients read and overwrite whole. The file itself is reached through this port (Deps.taskFile) so that
 * the core stays free of node:fs; infra/legacy/markdown-task-file.ts adapts it.
 */
export const LEGACY_MARKDOWN_MAX_CHARS = 512 * 1024;

export const legacyMarkdownBodySchema = z.strictObject({
  content: z.string().max(LEGACY_MARKDOWN_MAX_CHARS, `at most ${LEGACY_MARKDOWN_MAX_CHARS} characters`),
});

/**
 * POST /api/tasks serves two callers: a body carrying `content` and neither `title` nor
 * `project_id` is the legacy markdown writer; anything else is a task create.
 */
export function isLegacyMarkdownBody(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && !Array.isArray(body) && 'content' in body && !('title' in body) && !('project_id' in body)
  );
}

/** GET /api/tasks: the file's text ('' before the first write). */
export async function readLegacyTasks(deps: Pick<Deps, 'taskFile'>): Promise<{ content: string; path: string; format: 'markdown' }> {
  return { content: (await deps.taskFile.read()) ?? '', path: deps.taskFile.path, format: 'markdown' };
}

/**
 * POST /api/tasks {content}: audit `updated` (sizes, not the text) and overwrite the file, inside
 * one transaction so that a failed write leaves no audit row claiming it happened.
 */
export async function writeLegacyTasks(
  deps: Pick<Deps, 'storage' | 'clock' | 'ids' | 'events' | 'taskFile'>,
  body: unknown,
  actor = OPERATOR_ACTOR,
): Promise<{ success: true; path: string }> {
  const { content } = parseInput(legacyMarkdownBodySchema, body, 'legacy tasks');
  const db = requireDb(deps.storage);
  await db.transaction(async (tx) => {
    const before = await deps.taskFile.read();
    await recordChange(deps, tx, {
      actor,
      action: 'updated',
      entityType: 'legacy_tasks_file',
      entityId: 'tasks.md',
      oldValue: before === undefined ? null : { characters: before.length },
      newValue: { characters: content.length },
    });
    await deps.taskFile.write(content);
  });
  return { success: true, path: deps.taskFile.path };
}
