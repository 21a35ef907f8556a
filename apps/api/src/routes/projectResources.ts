import { errorResponses, HttpError, requireCaller, type VerifyApiKey, type VerifyJwt } from '@parley/http';

/**
 * What the management routes of a project's resources (agents, channel connections, webhook
 * subscriptions) share: the caller check (platform API key or user JWT, bound to the `projectId`
 * path parameter, then a permission), the OpenAPI security alternatives and the error responses.
 */
export function projectResourceRoutes(options: {
  verifyApiKey: VerifyApiKey;
  verifyJwt?: VerifyJwt | undefined;
}) {
  return {
    auth: (permission: string) =>
      requireCaller({
        verifyApiKey: options.verifyApiKey,
        verifyJwt: options.verifyJwt,
        permission,
        projectParam: 'projectId',
      }),
    security: [{ apiKey: [] }, { bearer: [] }, { userJwt: [] }] as Array<Record<string, string[]>>,
    errors: {
      400: errorResponses.standard,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      404: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
  };
}

/**
 * A store that needs CHANNEL_CREDENTIALS_KEY (it keeps secrets): 503 CHANNELS_NOT_CONFIGURED while
 * the key is not configured (`store` null).
 */
export function requireChannelKey<T>(store: T | null, what: string): T {
  if (store === null) {
    throw new HttpError(
      'CHANNELS_NOT_CONFIGURED',
      503,
      `${what} need CHANNEL_CREDENTIALS_KEY (docs/channels.md)`,
    );
  }
  return store;
}
