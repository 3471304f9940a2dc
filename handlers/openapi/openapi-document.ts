import * as z from 'zod';
import { statusByErrorCode } from '../middleware/error-status';
import { routeKeyOf, routes as routeTable, type Route } from '../routes';
import { routeSchemas, type RouteSchemas } from './route-schemas';

type JsonSchema = Record<string, unknown>;

/** Every error answer of the server: `{error, code, ...detail}` (handlers/middleware/http-handler.ts). */
const errorBody: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, code: { type: 'string' }, requestId: { type: 'string' } },
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
      if ((zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as JsonSchema;
  return rest;
}

/** The route table does not say which 2xx a handler answers (200, 201, 202 or 204), so the document says 2XX. */
const SUCCESS = '2XX';

function operation(route: Route, schemas: RouteSchemas | undefined): JsonSchema {
  const pathParams = [...route.path.matchAll(/:([A-Za-z][A-Za-z0-9_]*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = schemas?.query ? jsonSchemaOf(schemas.query, 'input') : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const queryParams = Object.entries((query?.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema,
  }));
  const errorStatuses = [...new Set(['400', '401', '404', '500', '503', ...Object.values(statusByErrorCode).map(String)])].sort();
  const responses: Record<string, JsonSchema> = {
    [SUCCESS]: {
      description: 'success',
      content: { 'application/json': { schema: schemas?.response ? jsonSchemaOf(schemas.response, 'output') : {} } },
    },
  };
  for (const status of errorStatuses) responses[status] = { $ref: '#/components/responses/Error' };
  const op: JsonSchema = {
    operationId: route.handler.replace(/[/-](\w)/g, (_m, c: string) => c.toUpperCase()),
    tags: [route.handler.split('/')[0]],
    parameters: [...pathParams, ...queryParams],
    responses,
    ...(route.public ? { security: [] } : {}),
  };
  if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
    op.requestBody = {
      required: false,
      content: { 'application/json': { schema: schemas?.body ? jsonSchemaOf(schemas.body, 'input') : { type: 'object' } } },
    };
  }
  return op;
}

/**
 * The OpenAPI 3.1 document of the task server, generated from the route table and the zod schemas
 * of routeSchemas: every route appears, with its path parameters, its query parameters and body
 * where a schema is registered, and the error body on every error status.
 */
export function openApiDocument(routes: readonly Route[] = routeTable, version = '0.1.0'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const key = routeKeyOf(route);
    const apiPath = key.split(' ')[1]!;
    (paths[apiPath] ??= {})[route.method.toLowerCase()] = operation(route, routeSchemas[key]);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Fleet task server', version, description: 'Generated from handlers/routes.ts and the zod schemas of core/. Unknown query keys are ignored and named in X-Ignored-Params.' },
    servers: [{ url: 'http://127.0.0.1:3876' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'DASHBOARD_AUTH_TOKEN, when the server has one' } },
      schemas: { Error: errorBody },
      responses: { Error: { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
    },
  };
}
