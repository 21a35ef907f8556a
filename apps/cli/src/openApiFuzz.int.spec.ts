import { listOperations, type OpenApiOperation as Operation } from '@parley/http/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FuzzRequest, mutatedRequest, payloadOf, urlOf, validRequest } from './testing/fuzzRequest.js';
import { createFuzzWorld, type FuzzWorld } from './testing/fuzzWorld.js';
import { createResponseChecker } from './testing/responseCheck.js';
import { resolverOf } from './testing/schemaArbitrary.js';

// Nothing leaves this machine: the platforms' APIs (webhook registration) and DNS are outside the
// system, so they are stood in for at their boundary. Loopback fetches go through; names other
// than localhost do not resolve.
vi.mock('node:dns/promises', async (original) => {
  const actual = await original<typeof import('node:dns/promises')>();
  const lookup = async (hostname: string, options?: { all?: boolean }) => {
    if (hostname !== 'localhost')
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const address = { address: '127.0.0.1', family: 4 };
    return options?.all ? [address] : address;
  };
  return { ...actual, default: { ...actual, lookup }, lookup };
});
const realFetch = globalThis.fetch;
vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : input);
  if (!['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname)) throw new TypeError('fetch failed');
  return realFetch(input, init);
});

/**
 * Every operation of /openapi.json, driven with requests generated from its own schemas (valid ones,
 * then ones with a NUL byte, an unpaired surrogate, an overlong value, a wrong type, a missing
 * field or a huge number): no 5xx but a documented 503, and every answer is documented, with its
 * content type, and matches its schema. Bounded: RUNS requests of each kind per operation, and a
 * time budget per operation.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 90_000);

let world: FuzzWorld;
beforeAll(async () => {
  world = await createFuzzWorld();
}, 240_000);
afterAll(() => world?.close());

async function send(operation: Operation, request: FuzzRequest) {
  const { payload, contentType } = payloadOf(operation, request);
  const headers: Record<string, string> = {
    ...request.headers,
    ...(request.scheme === undefined ? {} : world.credentials[request.scheme]),
    ...(contentType === undefined ? {} : { 'content-type': contentType }),
    accept: request.query.length % 2 === 0 ? 'text/event-stream, application/json' : '*/*',
  };
  return world.app.inject({
    method: operation.method as 'GET',
    url: urlOf(operation, request),
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
}

describe('the OpenAPI document, fuzzed', () => {
  it('answers every generated and mutated request with a documented answer, never a 5xx', async () => {
    // Deletions last: the seeded resources stay for the operations that read or change them.
    const operations = listOperations(world.document).sort(
      (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
    );
    const check = createResponseChecker(world.document);
    const resolve = resolverOf(world.document);
    const perOperationMs = Math.floor(BUDGET_MS / operations.length / 2);
    const failures: string[] = [];
    let requests = 0;
    const statuses = new Map<string, Map<number, number>>();
    for (const operation of operations) {
      const context = { resolve, known: (name: string) => world.known(name, operation.path) };
      for (const [kind, requestsOf] of [
        ['valid', validRequest],
        ['mutated', mutatedRequest],
      ] as const) {
        const result = await fc.check(
          fc.asyncProperty(requestsOf(operation, context), async (request) => {
            requests += 1;
            const res = await send(operation, request);
            const seen = statuses.get(`${operation.method} ${operation.path}`) ?? new Map<number, number>();
            seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
            if (
              process.env.FUZZ_DEBUG !== undefined &&
              `${operation.method} ${operation.path}`.includes(process.env.FUZZ_DEBUG)
            ) {
              console.log(res.statusCode, urlOf(operation, request).slice(0, 200), res.body.slice(0, 200));
            }
            statuses.set(`${operation.method} ${operation.path}`, seen);
            const problems = check(operation, {
              status: res.statusCode,
              contentType: res.headers['content-type'] as string | undefined,
              body: res.body,
            });
            if (problems.length > 0) {
              throw new Error(
                `${problems.join('; ')} [${request.mutation ?? 'valid'}] ${res.body.slice(0, 300)}`,
              );
            }
          }),
          {
            numRuns: RUNS,
            interruptAfterTimeLimit: perOperationMs,
            markInterruptAsFailure: false,
            endOnFailure: true,
          },
        );
        if (result.failed) {
          const error =
            result.errorInstance instanceof Error
              ? result.errorInstance.message
              : `${String(result.errorInstance)} (after ${result.numRuns} runs, ${result.numSkips} skips, interrupted ${result.interrupted})`;
          failures.push(
            `${`${operation.method} ${operation.path}`} (${kind}, seed ${result.seed}): ${error}\n  ${JSON.stringify(result.counterexample).slice(0, 400)}`,
          );
        }
      }
    }
    if (process.env.FUZZ_REPORT) {
      for (const [id, seen] of statuses) console.log(id, JSON.stringify(Object.fromEntries(seen)));
    }
    expect(requests).toBeGreaterThan(operations.length);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 300_000);
});
