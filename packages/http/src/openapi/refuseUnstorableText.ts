import { dottedPath, findUnstorableText, ParleyError, UNSTORABLE_TEXT_MESSAGE } from '@parley/platform';
import type { FastifyRequest } from 'fastify';

/**
 * What a route does with text PostgreSQL cannot store (U+0000, unpaired surrogates) in its body:
 * - `refuse` (default): 400 VALIDATION_ERROR naming the field, like any invalid input.
 * - `handler`: the handler deals with it: per item (ingest answers 207 for the bad item alone), or by
 *   keeping the text with U+FFFD (messages of platforms that retry on errors).
 * Path parameters and the query string are always refused.
 */
export type UnstorableBodyPolicy = 'refuse' | 'handler';

/**
 * The 400 for a field holding such text, naming it in the message (`params.sessionId: …`,
 * `body.items.0.text: …`); the analytics envelope also carries it as `error.details.field`.
 */
export function unstorableTextError(field: string): ParleyError {
  return new ParleyError('VALIDATION_ERROR', 400, `${field}: ${UNSTORABLE_TEXT_MESSAGE}`, {
    details: { field },
  });
}

/**
 * A preValidation hook, run after the route's authentication (which learns nothing from the text)
 * and before its schema: every input of the request reaches the handler, and so PostgreSQL, storable.
 * It reads the request as parsed, whether or not the route declares a schema for the part.
 */
export function refuseUnstorableText(body: UnstorableBodyPolicy) {
  return async (request: FastifyRequest): Promise<void> => {
    const parts: Array<[string, unknown]> = [
      ['params', request.params],
      ['querystring', request.query],
    ];
    if (body === 'refuse') parts.push(['body', request.body]);
    for (const [part, value] of parts) {
      const path = findUnstorableText(value);
      if (path !== undefined) throw unstorableTextError(dottedPath([part, ...path]));
    }
  };
}
