import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { NotFoundError } from '../../core/errors';
import { CORS_HEADERS } from '../../handlers/middleware/cors';
import { errorAnswer } from '../../handlers/middleware/error-status';
import { routeKeyOf, type Route } from '../../handlers/route';
import { registerRoutes } from '../../handlers/route-registry';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * One Lambda function serves one area of the route table (keeps the stack far below
 * CloudFormation's 500 resources): its rows (handlers/<area>/routes.ts) are registered for the
 * middy stack, and API Gateway's routeKey picks the row whose handler answers. `handlers` holds the
 * handler of each row by its `handler` name; runnerOnly rows are not served here.
 */
export function areaRouter(rows: readonly Route[], handlers: Readonly<Record<string, Handler>>): Handler {
  registerRoutes(rows);
  const byRouteKey = new Map<string, Handler>();
  for (const row of rows) {
    if (row.runnerOnly) continue;
    const handler = handlers[row.handler];
    if (!handler) throw new Error(`no handler given for ${row.handler} (${routeKeyOf(row)})`);
    byRouteKey.set(routeKeyOf(row), handler);
  }
  return async (event, context) => {
    const handler = byRouteKey.get(event.routeKey);
    if (handler) return handler(event, context);
    const { status, body } = errorAnswer(new NotFoundError(`no route for ${event.routeKey}`));
    return {
      statusCode: status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...CORS_HEADERS },
      body: JSON.stringify(body),
    };
  };
}
