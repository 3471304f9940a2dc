import { artifactSchema, listArtifactsQuerySchema, updateArtifactSchema } from '../../core/workflows/artifacts';
import { deleted, listOf } from '../openapi/report-schemas';
import type { Route } from '../route';

/** Artifacts of workflow runs (spec 03). */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/artifacts',
    handler: 'artifacts/list-artifacts',
    query: listArtifactsQuerySchema,
    response: listOf('artifacts', artifactSchema),
  },
  {
    method: 'PATCH',
    path: '/api/artifacts/:id',
    handler: 'artifacts/update-artifact',
    body: updateArtifactSchema,
    response: artifactSchema,
  },
  { method: 'DELETE', path: '/api/artifacts/:id', handler: 'artifacts/delete-artifact', response: deleted('id') },
];
