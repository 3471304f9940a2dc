import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../handlers/openapi/openapi-document';
import { routeSchemas } from '../../handlers/openapi/route-schemas';
import { routeKeyOf, routes } from '../../handlers/routes';

type Doc = { paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string; required: boolean }>; requestBody?: unknown; responses: Record<string, unknown>; security?: unknown[] }>> };

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document by a maintained validator', async () => {
    const doc = openApiDocument();
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every route of the route table, with its path parameters, from the table alone', () => {
    const doc = openApiDocument() as unknown as Doc;
    for (const route of routes) {
      const [method, apiPath] = routeKeyOf(route).split(' ') as [string, string];
      const op = doc.paths[apiPath]?.[method.toLowerCase()];
      expect(op, routeKeyOf(route)).toBeDefined();
      const names = [...apiPath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(op!.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(names);
      expect(op!.responses['401']).toBeDefined();
      if (route.public) expect(op!.security).toEqual([]);
    }
    // a route added to the table appears without an edit anywhere else
    const extra = openApiDocument([...routes, { method: 'GET', path: '/api/widgets/:widgetId', handler: 'widgets/get-widget' }]) as unknown as Doc;
    expect(extra.paths['/api/widgets/{widgetId}']?.get?.parameters).toEqual([{ name: 'widgetId', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it('takes query parameters and bodies from the zod schemas the use cases parse with', () => {
    const known = new Set(routes.map(routeKeyOf));
    for (const key of Object.keys(routeSchemas)) expect(known.has(key), key).toBe(true);
    const doc = openApiDocument() as unknown as Doc;
    const audit = doc.paths['/api/audit']!.get!;
    expect(audit.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['q', 'actor', 'limit', 'offset', 'governance_only']));
    const agent = doc.paths['/api/views/agent']!.get!;
    expect(agent.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['agent', 'agent_name']));
    const createTask = doc.paths['/api/tasks']!.post!.requestBody as { content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } } };
    expect(createTask.content['application/json'].schema.required).toEqual(expect.arrayContaining(['project_id', 'title']));
    expect(Object.keys(createTask.content['application/json'].schema.properties)).toEqual(expect.arrayContaining(['status', 'category']));
  });
});
