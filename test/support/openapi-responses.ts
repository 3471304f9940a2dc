import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../handlers/openapi/openapi-document';
import type { Route } from '../../handlers/routes';
import { routeKeyOf } from '../../handlers/routes';

type JsonSchema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: JsonSchema }> }>;
}

const document = openApiDocument() as { paths: Record<string, Record<string, Operation>>; components: JsonSchema };
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
// the document's own $refs (#/components/...) resolve against it
ajv.addSchema({ $id: 'openapi.json', components: document.components });

const validators = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: JsonSchema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as JsonSchema;
    validate = ajv.compile(rebased);
    validators.set(key, validate);
  }
  return validate;
}

function responseOf(op: Operation, status: number) {
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
  if (!response?.$ref) return response;
  const name = response.$ref.split('/').pop()!;
  return (document.components.responses as Record<string, Operation['responses'][string]>)[name];
}

/**
 * Holds an answer of the server to the OpenAPI document (GET /api/openapi.json): its status must be
 * one the route's operation lists, and a JSON body must match that status's schema (but a success
 * body of read-only fallback mode, which is the fallback file's records as stored). Throws with the
 * route, the status and what did not match, so a test that receives an undocumented answer fails.
 */
export function assertDocumentedResponse(
  route: Route,
  status: number,
  contentType: string | undefined,
  body: unknown,
  options: { fallbackMode?: boolean } = {},
): void {
  const [method, apiPath] = routeKeyOf(route).split(' ') as [string, string];
  const op = document.paths[apiPath]?.[method.toLowerCase()];
  if (!op) throw new Error(`the OpenAPI document has no operation for ${method} ${apiPath}`);
  const response = responseOf(op, status);
  if (!response) {
    throw new Error(
      `${method} ${apiPath} answered ${status}, which its OpenAPI operation does not list (${Object.keys(op.responses).join(', ')})`,
    );
  }
  if (!contentType?.includes('json') || body === undefined || typeof body === 'string') return;
  // read-only fallback mode answers the fallback file's records as they are stored (the document says so)
  if (options.fallbackMode && status < 300) return;
  const schema = response.content?.['application/json']?.schema;
  if (!schema)
    throw new Error(`${method} ${apiPath} answered ${status} with JSON, but its OpenAPI operation documents no JSON body for it`);
  const validate = validatorFor(`${method} ${apiPath} ${status}`, schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    throw new Error(`${method} ${apiPath} answered ${status} with a body its OpenAPI schema refuses: ${problems}`);
  }
}
