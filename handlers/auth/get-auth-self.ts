import { authSelf, bearerTokenOf, claimOfBearer } from '../../core/auth/bearer-token';
import { publicPaths } from '../route-registry';
import { httpHandler, json } from '../middleware/http-handler';

/** GET /api/auth/self (public): what the caller is, and how this server authenticates. */
export const handler = httpHandler(async (event, app) => {
  const token = app.config.authToken;
  return json(
    authSelf({
      tokenRequired: !!token,
      presentedValidToken: !!token && claimOfBearer(token, bearerTokenOf(event.headers?.authorization)) === 'operator',
      publicRoutes: publicPaths(),
      principal: event.principal,
    }),
  );
});
