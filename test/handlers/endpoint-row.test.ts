import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../handlers/openapi/openapi-document';
import { routeKeyOf, type Route } from '../../handlers/route';
import { routes } from '../../handlers/routes';
import { RouteMatcher } from '../../infra/http/route-matcher';
import { areaRouter } from '../../infra/lambda/area-router';
import { handler as polishWidget } from '../fixtures/new-endpoint/polish-widget';
import { polishWidgetRow } from '../fixtures/new-endpoint/routes';
import { fixtureEvent } from '../support/api-gateway-fixture';
import { useTestApp } from '../support/use-app';

/**
 * docs/ARCHITECTURE.md "Adding an endpoint": a use case, a row and a one-line handler are all an
 * endpoint needs (test/fixtures/new-endpoint/). The row added to the table is documented, routed,
 * answered with its status and held to its agent rule, with no edit anywhere else.
 */
const OPERATOR = 'operator-token-5d0c1a';
const app = useTestApp({ env: { DASHBOARD_AUTH_TOKEN: OPERATOR } });
const table: readonly Route[] = [...routes, polishWidgetRow];
const handlers = { 'widgets/polish-widget': polishWidget };
const widgetId = randomUUID();

type Operation = {
  parameters: Array<{ name: string; in: string }>;
  requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema: { required?: string[] } }> }>;
};

type Invoke = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** POST /api/widgets/:id/polish as API Gateway sends it to a Lambda function. */
async function polish(invoke: Invoke, token: string, body: unknown, routeKey = routeKeyOf(polishWidgetRow)) {
  const event: APIGatewayProxyEventV2 = fixtureEvent({
    method: 'POST',
    target: `/api/widgets/${widgetId}/polish`,
    routeKey,
    pathParameters: { widgetId },
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const result = await invoke(event, { awsRequestId: 'test' } as Context);
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') as Record<string, unknown> };
}

async function agentToken(scopes: string[]): Promise<string> {
  const minted = await app.call('POST', '/api/agent-tokens', {
    headers: { authorization: `Bearer ${OPERATOR}` },
    body: { agent_id: 'polisher-1', scopes },
  });
  expect(minted.status).toBe(201);
  return minted.body.token as string;
}

describe('an endpoint is one row', () => {
  it('appears in the OpenAPI document with its path parameter, body schema, success status and answer schema', () => {
    const doc = openApiDocument(table) as { paths: Record<string, Record<string, Operation>> };
    const op = doc.paths['/api/widgets/{widgetId}/polish']?.post;
    expect(op?.parameters).toEqual([{ name: 'widgetId', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(Object.keys(op!.requestBody.content['application/json']!.schema.properties)).toEqual(['shine', 'polished_by']);
    expect(Object.keys(op!.responses)).toEqual(['201', '4XX', '5XX']);
    expect(op!.responses['201']!.content!['application/json']!.schema.required).toEqual(['widget_id', 'shine', 'polished_by']);
  });

  it("is routed by the runner's matcher", () => {
    const match = new RouteMatcher(table).match('POST', `/api/widgets/${widgetId}/polish`);
    expect(match?.route).toBe(polishWidgetRow);
    expect(match?.pathParameters).toEqual({ widgetId });
  });

  it("answers its row's success status through the middy stack, though its handler names none", async () => {
    const res = await polish(areaRouter([polishWidgetRow], handlers), OPERATOR, { shine: 7 });
    expect(res).toEqual({ status: 201, body: { widget_id: widgetId, shine: 7, polished_by: 'dashboard-operator' } });
    // the use case's refusals pass through as ever
    expect((await polish(areaRouter([polishWidgetRow], handlers), OPERATOR, { shine: 70 })).status).toBe(400);
  });

  it('holds an agent token to its agent rule: 403 without one, the agent bound as the actor with one', async () => {
    const token = await agentToken(['read']);
    const { agent: _rule, ...operatorsRow } = polishWidgetRow;
    const refused = await polish(areaRouter([operatorsRow], handlers), token, { shine: 3 });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toMatch(/it is the operator's/);

    const passed = await polish(areaRouter([polishWidgetRow], handlers), token, { shine: 3, polished_by: 'someone-else' });
    expect(passed).toEqual({ status: 201, body: { widget_id: widgetId, shine: 3, polished_by: 'polisher-1' } });
  });

  it('fails closed for a route key no one registered: no agent rule, and an answer without a status takes 200', async () => {
    const unregistered = 'POST /api/widgets/{widgetId}/unregistered-polish';
    expect((await polish(polishWidget, await agentToken(['read']), { shine: 2 }, unregistered)).status).toBe(403);
    expect(await polish(polishWidget, OPERATOR, { shine: 2 }, unregistered)).toMatchObject({ status: 200, body: { shine: 2 } });
  });
});
