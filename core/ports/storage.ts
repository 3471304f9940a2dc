import type { Db } from './db';

/** What the read-only fallback file holds (spec 01: projects and tasks while the database is away). */
/** A project as use cases read it (core/projects/project.ts: its schema reads exactly this). */
export interface Project {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'paused' | 'archived';
  tags: string[];
  default_workflow_id: string | null;
  metadata: Record<string, unknown>;
  qmd_project_namespace: string | null;
  workspace_id: string | null;
  created_at: Date;
  updated_at: Date;
}

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
  { mode: 'database'; db: Db; label: string } | { mode: 'fallback'; fallback: FallbackData; label: string; reason: string };
