import * as z from 'zod';
import type { Route } from '../route';

const taskOptionsSchema = z.object({
  defaults: z.object({ agent: z.string().nullable(), model: z.string().nullable() }),
  agents: z.array(
    z.object({ id: z.string(), name: z.string(), model: z.string().nullable(), sources: z.array(z.enum(['profile', 'runtime'])) }),
  ),
  models: z.array(z.string()),
});

/** The agents and models a new task may name. */
export const routes: readonly Route[] = [
  { method: 'GET', path: '/api/task-options', handler: 'task-options/get-task-options', response: taskOptionsSchema },
];
