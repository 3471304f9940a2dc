import type { operations } from '../../mcp/task-server-paths';
import { api, expectData, undescribed } from './api';
import type { Topic } from './queries';

/** The Runs screen's and the run page's reads and writes, each one route of the API (docs/console-api.md). */
export type RunsView = operations['viewsGetRunsView']['responses'][200]['content']['application/json'];
export type RunRow = RunsView['runs'][number];
export type RunPageData = operations['workflowRunsGetWorkflowRunPage']['responses'][200]['content']['application/json'];
export type RunAction = RunRow['actions'][number];

/** The filters the URL holds (`/runs?status=&type=&agent=&task=`), by their query names. */
export interface RunFilters {
  status: string;
  type: string;
  agent: string;
  task: string;
}

/** A run's rows and page change with its own changes and with its approvals'. */
export const runTopics: readonly Topic[] = ['runs', 'approvals'];

export const runsViewKey = (f: RunFilters) => `runs-view:${f.status}:${f.type}:${f.agent}:${f.task}`;

export function loadRunsView(f: RunFilters): Promise<RunsView> {
  const query = {
    ...(f.status ? { status: f.status } : {}),
    ...(f.type ? { workflow_type: f.type } : {}),
    ...(f.agent ? { agent: f.agent } : {}),
    ...(f.task ? { task_id: f.task } : {}),
  };
  return expectData(api().GET('/api/views/runs', { params: { query } }));
}

export const loadRunPage = (id: string): Promise<RunPageData> =>
  expectData(api().GET('/api/workflow-runs/{id}/page', { params: { path: { id } } }));

const runPath = (id: string) => ({ params: { path: { id } } });

/** The route behind each of a run's buttons; Retry is the redispatch of an ended run (override-failure to queued). */
export const runActions: Record<RunAction, (id: string) => Promise<unknown>> = {
  start: (id) => expectData(api().POST('/api/workflow-runs/{id}/start', { ...runPath(id), body: {} })),
  cancel: (id) =>
    expectData(
      api().POST('/api/workflow-runs/{id}/cancel', { ...runPath(id), body: undescribed({ reason: 'cancelled from the console' }) }),
    ),
  retry: (id) =>
    expectData(
      api().POST('/api/workflow-runs/{id}/override-failure', {
        ...runPath(id),
        body: undescribed({ next_status: 'queued', reason: 'retried from the console' }),
      }),
    ),
};

export const decideApproval = (approvalId: string, decision: 'approved' | 'rejected', note?: string) =>
  expectData(api().PATCH('/api/approvals/{id}', { params: { path: { id: approvalId } }, body: { decision, ...(note ? { note } : {}) } }));

/** Merges `metadata` into the artifact's (PATCH /api/artifacts/:id). */
export const updateArtifactMetadata = (artifactId: string, metadata: Record<string, unknown>) =>
  expectData(api().PATCH('/api/artifacts/{id}', { params: { path: { id: artifactId } }, body: { metadata } }));
