import { fillPath, listOperations, minimalValue, type OpenApiOperation } from '@parley/http/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessParley, startInProcessParley } from './testing/inProcessParley.js';
import {
  BODY_EXAMPLES,
  credentialQuery,
  type OperationReferences,
  type Owner,
  propertiesOf,
  queryDefaults,
  referencesOf,
} from './testing/tenantReferences.js';
import { createTenantWorld, type TenantWorld } from './testing/tenantWorld.js';

/**
 * Tenant isolation as a property (issue 17): for every operation of the API's own OpenAPI
 * document that names a project or a resource of one, a credential of tenant A (every kind) never
 * gets a 2xx for tenant B's resources, and no answer carries B's data. The operations come from
 * `/openapi.json`, so a new route is covered without editing this file; a route naming a resource
 * nobody described fails (testing/tenantReferences.ts) rather than being skipped.
 */

/** The credentials of tenant A, each as the headers that carry it. */
const CREDENTIALS = [
  'apiKey',
  'apiKeyBearer',
  'userJwt',
  // A's user whose token also names B's project (the identity provider's mistake or a forgery
  // under a shared secret): the verifier keeps only A's projects.
  'userJwtNamingB',
  'userJwtUnknownTenant',
  'userJwtNoTenant',
  'sdkToken',
  'publicKey',
  'publicKeyInit',
  'none',
] as const;
type CredentialKind = (typeof CREDENTIALS)[number];

/**
 * Operations that answer anyone by design, B's resource included (each with why). Any other
 * operation without a security requirement (webhooks) must refuse A's credentials on B's resources.
 */
const PUBLIC_BY_DESIGN: Record<string, string> = {
  'GET /api/v1/a2a/{identifier}/.well-known/agent-card.json':
    'A2A agent cards are public discovery documents (docs/channels.md "A2A")',
};

/**
 * Operations whose request body has a required field of open shape (no properties to follow), so
 * the generator cannot name B's resources inside it: each has its own example test below. A new
 * one fails 'knows every open request body' until it is covered and listed here.
 */
const OPEN_BODIES: Record<string, string> = {
  'POST /api/v1/ingest': 'ingest items name sessions and recordings: "ingest never writes into B…"',
  'POST /api/v1/a2a/{identifier}': 'JSON-RPC params name tasks and contexts: "A2A never serves B…"',
};

let parley: InProcessParley;
let A: TenantWorld;
let B: TenantWorld;
let operations: Array<{ op: OpenApiOperation; refs: OperationReferences }>;
const headersOf = new Map<CredentialKind, Record<string, string>>();

beforeAll(async () => {
  parley = await startInProcessParley();
  A = await createTenantWorld(parley, 'A');
  B = await createTenantWorld(parley, 'B');
  const doc = (await parley.app.inject('/openapi.json')).json();
  // referencesOf throws for an operation it cannot fill: the whole suite fails, nothing is skipped.
  operations = listOperations(doc)
    .map((op) => ({ op, refs: referencesOf(op) }))
    .filter(({ refs }) => refs.references.length > 0);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  headersOf.set('apiKey', { 'x-api-key': A.apiKey });
  headersOf.set('apiKeyBearer', bearer(A.apiKey));
  headersOf.set('userJwt', bearer(await A.jwt()));
  headersOf.set('userJwtNamingB', bearer(await A.jwt({ project_ids: [A.projectId, B.projectId] })));
  headersOf.set(
    'userJwtUnknownTenant',
    bearer(await A.jwt({ tenant_id: 'ten_not_a_tenant', project_ids: [B.projectId] })),
  );
  headersOf.set('userJwtNoTenant', bearer(await A.jwt({ tenant_id: undefined, project_ids: [B.projectId] })));
  headersOf.set('sdkToken', { 'x-sdk-token': A.sdkToken, origin: A.origin });
  headersOf.set('publicKey', { 'x-api-key': A.publicKey, origin: A.origin });
  headersOf.set('publicKeyInit', { 'x-public-key': A.publicKey, origin: A.origin });
  headersOf.set('none', {});
}, 180_000);
afterAll(() => parley?.close());

interface Case {
  operation: number;
  credential: CredentialKind;
  /** Owner of each reference of the operation, in referencesOf order; null: left out (optional body fields). */
  owners: Array<Owner | null>;
}

let sequence = 0;

const worldOf = (owner: Owner) => (owner === 'A' ? A : B);

/** Whether a (dotted) body field is required at every level. */
function isRequired(op: OpenApiOperation, field: string): boolean {
  let schema = op.requestBody?.schema;
  for (const name of field.split('.')) {
    const object =
      (schema?.properties ? schema : undefined) ??
      ((schema?.anyOf ?? schema?.oneOf) as Array<Record<string, unknown>> | undefined)?.find(
        (s) => s.properties,
      );
    if (!((object?.required as string[] | undefined) ?? []).includes(name)) return false;
    schema = propertiesOf(object)[name];
  }
  return true;
}

function setPath(target: Record<string, unknown>, dotted: string, value: string): void {
  const names = dotted.split('.');
  let node = target;
  for (const name of names.slice(0, -1)) {
    const next = node[name];
    node[name] = typeof next === 'object' && next !== null ? next : {};
    node = node[name] as Record<string, unknown>;
  }
  node[names.at(-1) as string] = value;
}

const keyOf = (op: OpenApiOperation) => `${op.method} ${op.path}`;

/** The request of a case: the operation with each reference taken from its owner's world. */
function requestOf(c: Case) {
  const { op, refs } = operations[c.operation]!;
  const pathValues: Record<string, string> = {};
  for (const fixed of refs.fixed) pathValues[fixed.name] = fixed.value(op, A);
  const example = op.operationId === undefined ? undefined : BODY_EXAMPLES[op.operationId];
  sequence += 1;
  const body = op.requestBody
    ? ((example?.(sequence) ?? minimalValue(op.requestBody.schema)) as Record<string, unknown>)
    : undefined;
  const query = new URLSearchParams();
  const defaults = queryDefaults();
  for (const name of Object.keys(propertiesOf(op.requestBody?.schema))) {
    if (defaults[name] !== undefined && body !== undefined) body[name] = defaults[name];
  }
  for (const param of op.parameters) {
    if (param.in !== 'query') continue;
    if (defaults[param.name] !== undefined) query.set(param.name, defaults[param.name]!);
    else if (param.required) query.set(param.name, String(minimalValue(param.schema)));
  }
  for (const [name, value] of Object.entries(credentialQuery(op, A))) query.set(name, value);
  refs.references.forEach((ref, i) => {
    const owner = c.owners[i];
    if (owner === null && ref.where === 'body') return;
    const value = ref.value(worldOf(owner ?? 'B'));
    if (ref.where === 'path') pathValues[ref.name] = value;
    else if (ref.where === 'query') query.set(ref.name, value);
    else if (body !== undefined && typeof body === 'object' && body !== null) setPath(body, ref.name, value);
  });
  const headers: Record<string, string> = { ...headersOf.get(c.credential) };
  for (const param of op.parameters) {
    if (param.in === 'header' && param.required) headers[param.name] = String(minimalValue(param.schema));
  }
  // The SSE endpoint refuses any other Accept (406) before it looks at what the body names.
  if (op.path === '/api/v1/chat/stream') headers.accept = 'text/event-stream';
  const search = query.toString();
  return {
    method: op.method as 'GET',
    url: `${fillPath(op, pathValues)}${search === '' ? '' : `?${search}`}`,
    headers,
    ...(body === undefined ? {} : { payload: body }),
  };
}

/** Whether the case names one of B's resources directly (not only through a filter). */
function namesB(c: Case): boolean {
  const { refs } = operations[c.operation]!;
  return refs.references.some((ref, i) => ref.kind === 'resource' && c.owners[i] === 'B');
}

async function check(c: Case): Promise<void> {
  const { op } = operations[c.operation]!;
  const request = requestOf(c);
  const res = await parley.app.inject(request);
  const what = `${c.credential} ${request.method} ${request.url} ${JSON.stringify(request.payload ?? null)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, `server error: ${what}`).toBeLessThan(500);
  if (PUBLIC_BY_DESIGN[keyOf(op)] !== undefined) return;
  expect(res.body, `B's data in the answer: ${what}`).not.toContain(B.marker);
  if (namesB(c)) {
    expect(res.statusCode >= 200 && res.statusCode < 300, `2xx on B's resource: ${what}`).toBe(false);
  }
}

describe('tenant isolation (OpenAPI-driven property)', () => {
  it('covers the operations that name tenant resources, with at least one of each kind', () => {
    const paths = operations.map(({ op }) => op.path);
    for (const expected of [
      '/api/projects/{projectId}/channel-connections/{id}',
      '/api/projects/{projectId}/webhook-subscriptions/{id}/deliveries/{deliveryId}',
      '/api/projects/{projectId}/sdk-channels/{channelId}',
      '/api/public/recordings/projects/{projectId}/sessions/{sessionId}/recordings',
      '/api/v1/chat/send',
      '/api/v1/sdk/init',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(operations.length).toBeGreaterThan(40);
  });

  it("no credential of tenant A gets a 2xx or B's data on B's resources", async () => {
    const maxRefs = Math.max(...operations.map(({ refs }) => refs.references.length));
    // Every operation × every credential with all of B's ids first (exhaustive), then random mixes
    // of A's and B's ids (A's project with B's connection, …), which is where lookups forget the project.
    const exhaustive: Case[] = operations.flatMap(({ refs }, operation) =>
      CREDENTIALS.map((credential) => ({
        operation,
        credential,
        owners: refs.references.map((): Owner => 'B'),
      })),
    );
    const mixed = fc
      .record({
        operation: fc.integer({ min: 0, max: operations.length - 1 }),
        credential: fc.constantFrom(...CREDENTIALS),
        owners: fc.array(fc.constantFrom<Owner>('A', 'B'), { minLength: maxRefs, maxLength: maxRefs }),
      })
      .map((c): Case => {
        const { references } = operations[c.operation]!.refs;
        const owners = c.owners.slice(0, references.length);
        // Name B at least once, through a resource when the operation has one.
        const first = references.findIndex((r) => r.kind === 'resource');
        if (!owners.includes('B')) owners[Math.max(first, 0)] = 'B';
        return { ...c, owners };
      });
    await fc.assert(fc.asyncProperty(mixed, check), {
      examples: exhaustive.map((c) => [c]),
      numRuns: exhaustive.length + 400,
      endOnFailure: true,
    });
  }, 600_000);

  it("the same requests with A's own ids are served: the refusals above are isolation, not bad requests", async () => {
    // Served: answered 2xx, or 409 (A's resource was found and is busy, e.g. a delivery still retrying).
    const isServed = (status: number) => status < 300 || status === 409;
    const refused: string[] = [];
    // Deletions last, so that every other operation still finds A's resources.
    const ordered = [...operations.keys()].sort(
      (x, y) => Number(operations[x]!.op.method === 'DELETE') - Number(operations[y]!.op.method === 'DELETE'),
    );
    for (const operation of ordered) {
      const { op, refs } = operations[operation]!;
      if (op.security === null) continue; // webhooks: signed by the platform, no credential of A serves them
      const served = [];
      const answers = [];
      // Every reference A's, and again without the optional body fields (one may not fit the
      // others: a session id an HTTP async subscription never used).
      const variants = [
        refs.references.map((): Owner | null => 'A'),
        refs.references.map((ref): Owner | null =>
          ref.where === 'body' && !isRequired(op, ref.name) ? null : 'A',
        ),
      ];
      for (const credential of CREDENTIALS) {
        for (const owners of variants) {
          const res = await parley.app.inject(requestOf({ operation, credential, owners }));
          if (isServed(res.statusCode)) served.push(credential);
          answers.push(`${credential} ${res.statusCode} ${res.body.slice(0, 160)}`);
        }
      }
      if (served.length === 0) refused.push(`${keyOf(op)}\n    ${answers.join('\n    ')}`);
    }
    expect(refused).toEqual([]);
  }, 300_000);

  it('knows every open request body (covered by the example tests below)', async () => {
    const doc = (await parley.app.inject('/openapi.json')).json();
    const open = listOperations(doc)
      .filter((op) => {
        const schema = op.requestBody?.schema;
        const required = (schema?.required as string[] | undefined) ?? [];
        return required.some((name) => isOpen(propertiesOf(schema)[name]));
      })
      .map(keyOf);
    expect(open.sort()).toEqual(Object.keys(OPEN_BODIES).sort());
  });

  it("ingest never writes into B's sessions or recordings with A's key", async () => {
    const at = new Date().toISOString();
    const intrusion = `intrusion-${A.marker}`;
    const res = await parley.app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { 'x-api-key': A.apiKey },
      payload: {
        items: [
          {
            id: 'into-b-1',
            type: 'message.user',
            data: { sessionId: B.sessionId, messageId: 'm-x', text: intrusion, receivedAt: at },
          },
          {
            id: 'into-b-2',
            type: 'recording.started',
            data: { recordingId: B.recordingId, sessionId: B.sessionId, callId: 'CA1', startedAt: at },
          },
        ],
      },
    });
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toContain(B.marker);
    expect(res.body).not.toContain(B.projectId);
    const results = res.json().data.results as Array<{ status: string; error?: { code: string } }>;
    expect(results.map((r) => [r.status, r.error?.code])).toEqual([
      ['rejected', 'ID_IN_USE'],
      ['rejected', 'ID_IN_USE'],
    ]);
    await parley.projected();
    const transcript = await parley.app.inject({
      url: `/api/projects/${B.projectId}/sessions/${B.sessionId}/messages`,
      headers: { 'x-api-key': B.apiKey },
    });
    expect(transcript.statusCode).toBe(200);
    expect(transcript.body).toContain(B.marker);
    expect(transcript.body).not.toContain(intrusion);
  });

  it("A2A never serves B's tasks through A's own connection", async () => {
    const rpc = async (method: string, params: Record<string, unknown>) => {
      const res = await parley.app.inject({
        method: 'POST',
        url: `/api/v1/a2a/${A.a2a.identifier}`,
        headers: { 'x-api-key': A.apiKey },
        payload: { jsonrpc: '2.0', id: 7, method, params },
      });
      expect(res.statusCode).toBeLessThan(500);
      expect(res.body).not.toContain(B.marker);
      return res.json() as { result?: Record<string, unknown>; error?: { code: number } };
    };
    expect((await rpc('tasks/get', { id: B.a2aTask.id })).error).toBeDefined();
    expect((await rpc('tasks/cancel', { id: B.a2aTask.id })).error).toBeDefined();
    const followUp = await rpc('message/send', {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'follow-up-of-b',
        taskId: B.a2aTask.id,
        contextId: B.a2aTask.contextId,
        parts: [{ kind: 'text', text: 'continue' }],
      },
    });
    expect(followUp.error).toBeDefined();
    // B's context id names nothing of B on A's connection: a new conversation of A's.
    const sameContext = await rpc('message/send', {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'context-of-b',
        contextId: B.a2aTask.contextId,
        parts: [{ kind: 'text', text: 'hello' }],
      },
    });
    expect(sameContext.result?.id).not.toBe(B.a2aTask.id);
  });
});

/** A schema with nothing named to follow: `{}`, an object without properties, an array of those. */
function isOpen(schema: Record<string, unknown> | undefined): boolean {
  if (schema === undefined) return false;
  if (schema.type === 'array') return isOpen((schema.items as Record<string, unknown> | undefined) ?? {});
  if (Object.keys(schema).length === 0) return true;
  return schema.type === 'object' && schema.properties === undefined;
}
