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

/**
 * The access of the resources of the channels (channel connections, webhook subscriptions): tag
 * `channels`, reading needs `channel_connection:read`, changing `channel_connection:write`, and
 * 503 CHANNELS_NOT_CONFIGURED without CHANNEL_CREDENTIALS_KEY (requireChannelKey).
 */
export function channelResourceAccess(options: {
  verifyApiKey: VerifyApiKey;
  verifyJwt?: VerifyJwt | undefined;
}) {
  const { auth, security, errors } = projectResourceRoutes(options);
  return {
    common: { tags: ['channels'], security },
    errors: { ...errors, 503: errorResponses.standard },
    read: auth('channel_connection:read'),
    write: auth('channel_connection:write'),
  };
}
