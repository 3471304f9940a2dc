import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { NotFoundError } from '../../core/errors';
import { CORS_HEADERS } from '../../handlers/middleware/cors';
import { errorAnswer } from '../../handlers/middleware/error-status';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * One Lambda function serves one area of the route table (keeps the stack far below
 * CloudFormation's 500 resources); API Gateway's routeKey picks the endpoint handler.
 */
export function areaRouter(handlers: Record<string, Handler>): Handler {
  return async (event, context) => {
    const handler = handlers[event.routeKey];
    if (handler) return handler(event, context);
    const { status, body } = errorAnswer(new NotFoundError(`no route for ${event.routeKey}`));
    return {
      statusCode: status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...CORS_HEADERS },
      body: JSON.stringify(body),
    };
  };
}
