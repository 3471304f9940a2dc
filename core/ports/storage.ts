import type { Db } from './db';
import type { Project } from '../projects/project';

/** What the read-only fallback file holds (spec 01: projects and tasks while the database is away). */
export interface FallbackData {
  savedAt: string | null;
  projects: Project[];
  tasks: Array<Record<string, unknown>>;
}

/**
 * Where data lives right now. `database` is the normal case; `fallback` serves the last
 * saved copy of projects and tasks read-only while a configured database is unreachable.
 */
export type Storage =
  | { mode: 'database'; db: Db; label: string }
  | { mode: 'fallback'; fallback: FallbackData; label: string; reason: string };
