import type { ExecutionQueue } from '@parley/http';
import type { Runtime } from '@parley/runtime';

/**
 * The runtime with its turns through the execution queue (TURN_CONCURRENCY at once,
 * TURN_QUEUE_DEPTH waiting, then 429 QUEUE_FULL): every turn of the API process, whichever route
 * asks for it (chat, AG-UI, web chat, synchronous webhooks, voice). A waiting turn whose caller
 * goes away (its signal) leaves the line.
 */
export function withExecutionQueue<R extends Pick<Runtime, 'runTurn'>>(runtime: R, queue: ExecutionQueue): R {
  return {
    ...runtime,
    runTurn: (req, options) => queue.run(() => runtime.runTurn(req, options), options?.signal),
  };
}
