import * as z from 'zod';
import { statusByErrorCode } from '../middleware/error-status';
import { routeKeyOf, successStatusesOf, type Route } from '../route';
import { routes as routeTable } from '../routes';

type JsonSchema = Record<string, unknown>;

/** An error answer: `{error, code, ...detail}` (core/errors.ts DomainError.body). */
const errorBody: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string' },
    code: { type: 'string' },
    requestId: { type: 'string' },
    details: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** Spec 02's "the data is not there" answer: 200 from a degraded read, 404/503 from budgets and actions. */
const unavailableBody: JsonSchema = {
  type: 'object',
  required: ['available', 'reason'],
  properties: { available: { const: false }, reason: { type: 'string' } },
};

/**
 * JSON Schema of one side of a zod schema: `input` for what a client sends, `output` for response
 * bodies. On the wire a Date is an ISO string; a transform JSON Schema cannot express becomes `{}`.
 */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if ((zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === 'date')
        Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as JsonSchema;
  return rest;
}

/** Error statuses any route may answer: request-level ones and every status of the domain error table. */
const errorStatuses = [...new Set([400, 401, 404, 413, 500, 503, ...Object.values(statusByErrorCode)])].filter((s) => s >= 400).sort();

/**
 * Every route may answer any error of the one error table (a database that went away is a 503
 * anywhere), so the document says 4XX and 5XX once per operation and lists the statuses in the
 * shared response's description, rather than twelve identical entries per operation.
 */
const errorRanges = ['4XX', '5XX'] as const;

function successResponse(status: number, route: Route): JsonSchema {
  if (status >= 300 && status < 400) return { description: 'redirect', headers: { location: { schema: { type: 'string' } } } };
  if (route.contentType) return { description: 'success', content: { [route.contentType]: { schema: { type: 'string' } } } };
  return {
    description: 'success',
    content: { 'application/json': { schema: successSchema(status, route) } },
  };
}

function successSchema(status: number, route: Route): JsonSchema {
  const response = route.response instanceof z.ZodType ? route.response : route.response?.[status];
  const schema = response ? jsonSchemaOf(response, 'output') : {};
  if (!route.degrades || status !== 200) return schema;
  const unavailable = { $ref: '#/components/schemas/Unavailable' };
  // a route that answers 200 only when degraded (a create) documents just the degraded body there
  return (route.success ?? [200]).includes(200) ? { anyOf: [schema, unavailable] } : unavailable;
}

const camel = (text: string) => text.replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * The handler's name in camel case (`tasksGetTask`). Two routes served by one handler (the two event
 * streams) would share it, which OpenAPI forbids: the route's path tells them apart.
 */
function operationIdOf(route: Route, table: readonly Route[]): string {
  const shared = table.filter((r) => r.handler === route.handler).length > 1;
  if (!shared) return camel(route.handler);
  const pathPart = route.path
    .replace(/^\/api\//, '')
    .replace(/:(\w+)/g, 'by-$1')
    .replace(/_(\w)/g, '-$1');
  return camel(`${route.handler}/${pathPart}`);
}

function operation(route: Route, table: readonly Route[]): JsonSchema {
  const pathParams = [...route.path.matchAll(/:([A-Za-z][A-Za-z0-9_]*)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = route.query ? jsonSchemaOf(route.query, 'input') : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const queryParams = Object.entries((query?.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema,
  }));
  const responses: Record<string, JsonSchema> = {};
  for (const status of successStatusesOf(route)) responses[String(status)] = successResponse(status, route);
  for (const range of errorRanges) responses[range] = { $ref: '#/components/responses/Error' };
  const op: JsonSchema = {
    operationId: operationIdOf(route, table),
    tags: [route.handler.split('/')[0]],
    parameters: [...pathParams, ...queryParams],
    responses,
    ...(route.public ? { security: [] } : {}),
  };
  if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
    op.requestBody = {
      required: false,
      content: { 'application/json': { schema: route.body ? jsonSchemaOf(route.body, 'input') : { type: 'object' } } },
    };
  }
  return op;
}

/**
 * The OpenAPI 3.1 document of the task server, generated from the route table (or the rows given):
 * every route appears, with its path parameters, its query parameters and body where its row has a
 * schema for them, its success statuses and bodies, and the error body on every error status.
 */
export function openApiDocument(routes: readonly Route[] = routeTable, version = '0.1.0'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const key = routeKeyOf(route);
    const apiPath = key.split(' ')[1]!;
    (paths[apiPath] ??= {})[route.method.toLowerCase()] = operation(route, routes);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Fleet task server',
      version,
      description:
        'Generated from handlers/routes.ts and the zod schemas of core/. Unknown query keys are ignored and named in X-Ignored-Params. ' +
        "In read-only fallback mode (no database) task and project reads answer the fallback file's records as they are stored, which need not match the schemas here.",
    },
    servers: [{ url: 'http://127.0.0.1:3876' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'DASHBOARD_AUTH_TOKEN, when the server has one' } },
      schemas: { Error: errorBody, Unavailable: unavailableBody },
      responses: {
        Error: {
          description: `an error: one of ${errorStatuses.join(', ')} (handlers/middleware/error-status.ts)`,
          content: {
            'application/json': {
              schema: { anyOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/Unavailable' }] },
            },
          },
        },
      },
    },
  };
}
