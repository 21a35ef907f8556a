import { type RecordedRequest, type StandInReply, startStandIn } from '../standInServer.js';
import { createBotFrameworkTestIssuer } from './botFrameworkTestIssuer.js';

export const STAND_IN_TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const STAND_IN_CLIENT_SECRET = 'teams-client-secret-Qx7~never-logged';
export const STAND_IN_ACCESS_TOKEN = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.stand-in-bot-token';

/**
 * Tests only: one local server standing in for everything a Teams bot talks to: the Bot
 * Framework's OpenID metadata and JWKS (GET /v1/.well-known/openidconfiguration, /keys), the
 * identity platform's token endpoint (POST /<tenant>/oauth2/v2.0/token, client credentials of
 * STAND_IN_CLIENT_SECRET only) and the Bot Connector API (POST /v3/conversations/...: the queued
 * `connectorAnswers` first, then 201 with a new activity id).
 */
export const startBotConnectorStandIn = async () => {
  const issuer = await createBotFrameworkTestIssuer();
  const connectorAnswers: StandInReply[] = [];
  let baseUrl = '';
  let activities = 0;
  const reply = (request: RecordedRequest): StandInReply => {
    if (request.method === 'GET' && request.path === '/v1/.well-known/openidconfiguration') {
      return { status: 200, body: issuer.metadata(`${baseUrl}/v1/.well-known/keys`) };
    }
    if (request.method === 'GET' && request.path === '/v1/.well-known/keys')
      return { status: 200, body: issuer.jwks };
    if (request.method === 'POST' && request.path === `/${STAND_IN_TENANT_ID}/oauth2/v2.0/token`) {
      const body = request.body as Record<string, string>;
      if (body.client_secret !== STAND_IN_CLIENT_SECRET || body.grant_type !== 'client_credentials') {
        return {
          status: 401,
          body: {
            error: 'invalid_client',
            error_description: 'AADSTS7000215: Invalid client secret provided.',
          },
        };
      }
      return {
        status: 200,
        body: {
          token_type: 'Bearer',
          expires_in: 3599,
          ext_expires_in: 3599,
          access_token: STAND_IN_ACCESS_TOKEN,
        },
      };
    }
    if (request.method === 'POST' && request.path.startsWith('/v3/conversations/')) {
      activities += 1;
      return (
        connectorAnswers.shift() ?? {
          status: 201,
          body: { id: `1763719300${String(activities).padStart(3, '0')}` },
        }
      );
    }
    return { status: 404, body: { error: { code: 'NotFound' } } };
  };
  const standIn = await startStandIn(reply);
  baseUrl = standIn.baseUrl;
  return {
    ...standIn,
    issuer,
    connectorAnswers,
    metadataUrl: `${baseUrl}/v1/.well-known/openidconfiguration`,
    connectorCalls: () => standIn.requests.filter((r) => r.path.startsWith('/v3/conversations/')),
    tokenCalls: () => standIn.requests.filter((r) => r.path.endsWith('/oauth2/v2.0/token')),
  };
};
