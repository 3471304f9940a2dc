import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../handlers/openapi/openapi-document';
import { routeKeyOf, routes, type Route } from '../../handlers/routes';
import { assertDocumentedResponse } from '../support/openapi-responses';
import { apiTypesSource } from '../../scripts/api-types';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Array<{ name: string; in: string; required: boolean }>;
        requestBody?: unknown;
        responses: Record<string, unknown>;
        security?: unknown[];
      }
    >
  >;
};

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
      expect(op!.responses['4XX']).toBeDefined();
      expect(op!.responses['5XX']).toBeDefined();
      if (route.public) expect(op!.security).toEqual([]);
    }
    // a route added to the table appears without an edit anywhere else
    const extra = openApiDocument([
      ...routes,
      { method: 'GET', path: '/api/widgets/:widgetId', handler: 'widgets/get-widget' },
    ]) as unknown as Doc;
    expect(extra.paths['/api/widgets/{widgetId}']?.get?.parameters).toEqual([
      { name: 'widgetId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('takes query parameters and bodies from the zod schemas the use cases parse with', () => {
    const doc = openApiDocument() as unknown as Doc;
    const audit = doc.paths['/api/audit']!.get!;
    expect(audit.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['q', 'actor', 'limit', 'offset', 'governance_only']));
    const agent = doc.paths['/api/views/agent']!.get!;
    expect(agent.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['agent', 'agent_name']));
    const createTask = doc.paths['/api/tasks']!.post!.requestBody as {
      content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } };
    };
    expect(createTask.content['application/json'].schema.required).toEqual(expect.arrayContaining(['project_id', 'title']));
    expect(Object.keys(createTask.content['application/json'].schema.properties)).toEqual(expect.arrayContaining(['status', 'category']));
  });

  it("gives every operation an id of its own, and openapi-typescript turns it into the MCP client's types", async () => {
    const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['eventsStreamEventsEvents', 'eventsStreamEventsEventsStream']));
    const source = await apiTypesSource();
    expect(source).toContain('"/api/tasks/{id}": {');
    expect(source).toContain('"/api/actions/execute": {');
  });

  it('types the success body of every route: a new row needs its response schema (or its contentType)', () => {
    const untyped = routes.filter((route) => !route.response && !route.contentType).map(routeKeyOf);
    expect(untyped).toEqual([]);
  });

  it("names each route's own success statuses and schemas, and the degraded 200 where spec 02 has one", () => {
    const doc = openApiDocument() as unknown as Doc;
    expect(Object.keys(doc.paths['/api/projects']!.post!.responses)).toContain('201');
    expect(doc.paths['/api/projects']!.post!.responses['200']).toBeUndefined();
    expect(Object.keys(doc.paths['/api/tasks']!.post!.responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(Object.keys(doc.paths['/api/cron/jobs/{id}/run']!.post!.responses)).toContain('202');
    // a create that answers 200 only when degraded
    expect(JSON.stringify(doc.paths['/api/budgets']!.post!.responses['200'])).toContain('#/components/schemas/Unavailable');
    const task = JSON.stringify(doc.paths['/api/tasks/{id}']!.get!.responses['200']);
    expect(task).toContain('lock_token');
    expect(task).toContain('date-time');
  });
});

describe('holding answers to the document (the check startTestApp runs on every reply)', () => {
  const route = (key: string): Route => routes.find((r) => routeKeyOf(r) === key)!;
  const project = {
    id: '0b8f6f9e-56d4-4c38-9c55-2a4f7f1ad2a1',
    name: 'p',
    description: '',
    status: 'active',
    tags: [],
    default_workflow_id: null,
    metadata: {},
    qmd_project_namespace: null,
    workspace_id: null,
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-26T10:00:00.000Z',
  };
  const json = 'application/json; charset=utf-8';

  it('passes a documented status with a body of its schema, and an error body on an error status', () => {
    expect(() => assertDocumentedResponse(route('POST /api/projects'), 201, json, project)).not.toThrow();
    expect(() =>
      assertDocumentedResponse(route('POST /api/projects'), 400, json, { error: 'bad', code: 'validation_failed' }),
    ).not.toThrow();
    expect(() =>
      assertDocumentedResponse(route('POST /api/budgets'), 200, json, { available: false, reason: 'no_database' }),
    ).not.toThrow();
  });

  it('refuses a status the operation does not list, a body that misses a field, a wrong type and an error without error', () => {
    expect(() => assertDocumentedResponse(route('POST /api/projects'), 200, json, project)).toThrow(
      /answered 200, which its OpenAPI operation does not list/,
    );
    const { name: _name, ...nameless } = project;
    expect(() => assertDocumentedResponse(route('POST /api/projects'), 201, json, nameless)).toThrow(/required property 'name'/);
    expect(() => assertDocumentedResponse(route('POST /api/projects'), 201, json, { ...project, created_at: 'yesterday' })).toThrow(
      /date-time/,
    );
    expect(() => assertDocumentedResponse(route('POST /api/projects'), 404, json, { message: 'gone' })).toThrow(/refuses/);
  });

  it('leaves the success bodies of read-only fallback mode alone, but not their statuses', () => {
    const listAll = route('GET /api/tasks/all');
    expect(() =>
      assertDocumentedResponse(listAll, 200, json, [{ id: 't1', title: 'from the file' }], { fallbackMode: true }),
    ).not.toThrow();
    expect(() => assertDocumentedResponse(listAll, 200, json, [{ id: 't1', title: 'from the file' }])).toThrow(/refuses/);
    expect(() => assertDocumentedResponse(listAll, 201, json, [], { fallbackMode: true })).toThrow(/does not list/);
  });
});
