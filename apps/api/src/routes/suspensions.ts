import {
  notifyChannelJob,
  SUSPENSION_SIGNATURE_HEADER,
  TOOL_RESUME_QUEUE,
  type ToolResumeJobData,
  toolResumeJobId,
  verifySuspensionCallback,
} from '@parley/channels';
import { addRoute, authenticationFailed, errorResponses, HttpError } from '@parley/http';
import { nullIfQueueMissing } from '@parley/platform';
import type { ClaimRefusal, SuspensionStore } from '@parley/runtime';
import type { FastifyPluginAsync } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { z } from 'zod';

export interface SuspensionRouteOptions {
  /** Null without CHANNEL_CREDENTIALS_KEY (no suspension can exist): 503 SUSPENSIONS_NOT_CONFIGURED. */
  suspensions: Pick<SuspensionStore, 'get' | 'secret' | 'claim'> | null;
  /** Only `send` (with the claim's transaction): the worker's tool-resume queue. */
  boss: Pick<PgBoss, 'send'>;
}

/** The largest callback body accepted; the model reads at most 64 KiB of it. */
export const SUSPENSION_CALLBACK_BODY_LIMIT = 256 * 1024;

const params = z.object({ suspensionId: z.string().min(1).max(256) });
const accepted = z.object({
  success: z.literal(true),
  data: z.object({ suspensionId: z.string(), status: z.literal('resumed') }),
});

const REFUSALS: Record<ClaimRefusal, () => HttpError> = {
  unknown: () => new HttpError('SUSPENSION_NOT_FOUND', 404, 'no such suspension'),
  expired: () =>
    new HttpError(
      'SUSPENSION_EXPIRED',
      410,
      'the suspension has expired: the agent answered without the result',
    ),
  timed_out: () =>
    new HttpError(
      'SUSPENSION_EXPIRED',
      410,
      'the suspension has expired: the agent answered without the result',
    ),
  already_resumed: () =>
    new HttpError('SUSPENSION_ALREADY_RESUMED', 409, 'the suspension has already resumed'),
};

/**
 * The suspension callback (spec 001 §5 item 2, docs/agents.md "Suspended tools"): the external
 * system a suspended tool called posts its result here, signed with the suspension's own secret in
 * `X-Callback-Signature` (hex HMAC-SHA256 of the raw body, optional `sha256=` prefix). A valid
 * callback before the deadline resumes the turn once (202; the worker runs it and delivers the
 * reply); a wrong or missing signature is 401 and an unknown suspension 404, an expired one 410, a
 * replay 409, and none of them changes anything.
 */
export const suspensionRoutes: FastifyPluginAsync<SuspensionRouteOptions> = async (app, options) => {
  // The signature is over the exact bytes: the body is read raw, parsed after the check.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: SUSPENSION_CALLBACK_BODY_LIMIT },
    (_req, body, done) => {
      done(null, body);
    },
  );

  addRoute(app, {
    method: 'POST',
    url: '/api/v1/suspensions/:suspensionId/callback',
    summary: "Resume a suspended tool call with the external system's result",
    description:
      'Called by the external system a suspended (asynchronous) tool called, with the suspension id and the ' +
      'callback URL it was given. Body: the result as a JSON object (`{"error": "<code>"}` fails the tool). ' +
      'Header `X-Callback-Signature`: hex HMAC-SHA256 of the raw body with the suspension secret.',
    tags: ['agents'],
    operationId: 'resumeSuspension',
    security: [],
    params,
    response: {
      202: accepted,
      400: errorResponses.standard,
      401: errorResponses.authentication,
      404: errorResponses.standard,
      409: errorResponses.standard,
      410: errorResponses.standard,
      413: errorResponses.standard,
      503: errorResponses.standard,
    },
    handler: async (request, reply) => {
      const store = options.suspensions;
      if (store === null) {
        throw new HttpError(
          'SUSPENSIONS_NOT_CONFIGURED',
          503,
          'suspended tools need CHANNEL_CREDENTIALS_KEY',
        );
      }
      const { suspensionId } = request.params;
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const secret = await store.secret(suspensionId);
      if (secret === null) throw REFUSALS.unknown();
      const signature = request.headers[SUSPENSION_SIGNATURE_HEADER.toLowerCase()];
      if (
        !verifySuspensionCallback({
          body: raw,
          signature: typeof signature === 'string' ? signature : undefined,
          secret,
        })
      ) {
        throw authenticationFailed('X-Callback-Signature is missing or does not match');
      }
      let result: unknown;
      try {
        result = JSON.parse(raw.toString('utf8'));
      } catch {
        result = undefined;
      }
      if (typeof result !== 'object' || result === null || Array.isArray(result)) {
        throw new HttpError('VALIDATION_ERROR', 400, 'the body must be a JSON object');
      }
      const job: ToolResumeJobData = { suspensionId, outcome: 'completed', result };
      const claimed = await store.claim(suspensionId, 'resumed', async (client) => {
        const id = await nullIfQueueMissing(
          options.boss.send(TOOL_RESUME_QUEUE, job, {
            id: toolResumeJobId(suspensionId),
            db: { executeSql: (text, values) => client.query(text, values) },
          }),
        );
        if (id === null)
          throw new HttpError('SERVICE_UNAVAILABLE', 503, 'the tool-resume queue does not exist');
        // Wakes the workers at commit (they listen on the channel jobs' channel).
        await notifyChannelJob(client, TOOL_RESUME_QUEUE);
      });
      if (!claimed.ok) throw REFUSALS[claimed.reason]();
      reply.status(202);
      return { success: true as const, data: { suspensionId, status: 'resumed' as const } };
    },
  });
};
