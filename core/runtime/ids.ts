import * as z from 'zod';
import { parseInput } from '../validation';

/**
 * Names that reach the file system (agent and session ids) or the runtime's argument list
 * (job ids, agent ids, session keys). A name may not start with a dash (it would read as a
 * CLI flag) or a dot, may hold no slash, backslash or `..`, and is never absolute: it can
 * name nothing outside RUNTIME_STATE_DIR or DATA_DIR.
 */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export const fileNameIdSchema = z
  .string({ message: 'must be a string' })
  .regex(SAFE_NAME, 'must be 1 to 128 letters, digits, dots, dashes or underscores, not starting with a dot or dash')
  .refine((v) => !v.includes('..'), 'must not contain ".."');

/** Scheduler job ids are passed to the CLI and (for legacy jobs) name a file; no dots at all there. */
export const jobIdSchema = z
  .string({ message: 'must be a string' })
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/, 'must be 1 to 100 letters, digits, dashes or underscores, not starting with a dash');

/** Session keys (agent:<agentId>:<kind>:<id>, or a chat key such as dashboard-agent) go to the CLI. */
export const sessionKeySchema = z
  .string({ message: 'must be a string' })
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:@/-]{0,199}$/, 'must be 1 to 200 letters, digits or ._:@/- characters, not starting with a dash');

export function parseAgentId(value: unknown, name = 'agent'): string {
  return parseInput(fileNameIdSchema, value, name);
}

export function parseSessionId(value: unknown, name = 'sessionId'): string {
  return parseInput(fileNameIdSchema, value, name);
}

export function parseJobId(value: unknown, name = 'id'): string {
  return parseInput(jobIdSchema, value, name);
}

/**
 * The parts of a session key: `agent:<agentId>:<kind>:<id>` (the contract), or `agent:<agentId>:<kind>`
 * (the released runtime's agent main session `agent:main:main`, whose id is null); undefined for any
 * other form.
 */
export function parseSessionKey(key: string | null | undefined): { agentId: string; kind: string; id: string | null } | undefined {
  if (!key) return undefined;
  const match = /^agent:([^:]+):([^:]+)(?::(.+))?$/.exec(key);
  if (!match) return undefined;
  const [, agentId, kind, id] = match as unknown as [string, string, string, string | undefined];
  if (!fileNameIdSchema.safeParse(agentId).success) return undefined;
  return { agentId, kind, id: id ?? null };
}

/** The main session of an agent, where the released runtime delivers system events meant for it. */
export function mainSessionKey(agentId: string): string {
  return `agent:${agentId}:main`;
}
