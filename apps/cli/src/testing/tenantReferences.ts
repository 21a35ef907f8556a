import { type OpenApiOperation, paramContext, type Schema } from '@parley/http/testing';
import type { TenantWorld } from './tenantWorld.js';

/**
 * How the tenant-isolation property fills what an operation names: which path parameters, body
 * fields and query parameters are a tenant's resources, and what a tenant's value for each is.
 * Unknown path parameters and unknown id-like body fields make `referencesOf` throw, so a new
 * route with a new kind of resource fails the property until it is described here, instead of
 * being skipped.
 */

/** Whose value a slot takes in one request. */
export type Owner = 'A' | 'B';

/**
 * - `resource`: a resource of one tenant; a request naming the other tenant's must be refused.
 * - `filter`: narrows a read of the caller's own project (a query filter, a client-chosen claim that
 *   the server checks later); naming the other tenant's may answer 2xx, never with its data.
 */
export type ReferenceKind = 'resource' | 'filter';

export interface Reference {
  where: 'path' | 'body' | 'query';
  name: string;
  kind: ReferenceKind;
  value(world: TenantWorld): string;
}

/** Path parameters that name no tenant's resource: fixed values of the deployment, or the caller's own credential. */
export interface FixedParameter {
  name: string;
  value(op: OpenApiOperation, caller: TenantWorld): string;
}

const resource = (value: (w: TenantWorld) => string): Omit<Reference, 'where' | 'name'> => ({
  kind: 'resource',
  value,
});

/** Path parameters by context (`<segment before>/{name}`); `*` matches any segment. */
const PATH_REFERENCES: Record<string, Omit<Reference, 'where' | 'name'>> = {
  '*/{projectId}': resource((w) => w.projectId),
  'sessions/{sessionId}': resource((w) => w.sessionId),
  'traces/{spanId}': resource((w) => w.spanId),
  'recordings/{recordingId}': resource((w) => w.recordingId),
  'agents/{name}': resource((w) => w.agentName),
  'channel-connections/{id}': resource((w) => w.slack.id),
  'webhook-subscriptions/{id}': resource((w) => w.subscriptionId),
  'deliveries/{deliveryId}': resource((w) => w.deliveryId),
  'sdk-channels/{channelId}': resource((w) => w.sdkChannelId),
  'webhook/{connectionIdentifier}': resource((w) => w.slack.identifier),
  'slash/{identifier}': resource((w) => w.slack.identifier),
  'hooks/{streamId}': resource((w) => w.contactCenter.streamId),
  'a2a/{identifier}': resource((w) => w.a2a.identifier),
  // A suspended tool's callback answers only its per-suspension signature, never a credential: an
  // unguessable id of the tenant's (none exists here: the route must refuse whatever it is sent).
  'suspensions/{suspensionId}': resource((w) => `susp_isolation_${w.projectId}`),
};

/** The channel type of the connection the other parameters of a webhook path name. */
function channelTypeOf(op: OpenApiOperation): string {
  if (op.pathParams.includes('streamId')) return 'contact_center';
  if (op.pathParams.includes('provider')) return 'sms';
  return 'slack';
}

const FIXED_PARAMETERS: Record<string, FixedParameter['value']> = {
  '*/{channelType}': channelTypeOf,
  '{channelType}/{provider}': () => 'twilio',
  'manifest/{channelType}': () => 'slack',
  'projections/{name}': () => 'session-summaries',
  // Deployment-wide (the projections admin API, operators only): a rebuild is no tenant's resource.
  'rebuilds/{rebuildId}': () => '00000000-0000-4000-8000-000000000000',
  // The proxied media URL's token is a credential: always the caller's own (its recording's).
  'content/{token}': (_op, caller) => caller.media.token,
};

/** Body fields (top-level properties of a JSON request body) that name a tenant's resources. */
const BODY_REFERENCES: Record<string, Omit<Reference, 'where' | 'name'>> = {
  projectId: resource((w) => w.projectId),
  project_id: resource((w) => w.projectId),
  sessionId: resource((w) => w.sessionId),
  subscription_id: resource((w) => w.subscriptionId),
  // POST /api/v1/channels/http_async/send: the subscription's Source ID.
  connectionId: resource((w) => w.subscriptionId),
  publicApiKeyId: resource((w) => w.publicKeyId),
  channelId: resource((w) => w.sdkChannelId),
  // POST …/sessions/search: the session list's filter, as the GET's query parameter.
  sessionIds: { kind: 'filter', value: (w) => w.sessionId },
};

/** Per operation: a body field that is not what its name says elsewhere, with the reason. */
const BODY_OVERRIDES: Record<string, Omit<Reference, 'where' | 'name'>> = {
  // A telephony or room token is for a session id the client chooses; the call's session is checked
  // against the project when the call connects (sessionOfCall, mediaStream sessionOfProject).
  'voiceToken.sessionId': { kind: 'filter', value: (w) => w.sessionId },
  'rtcVoiceToken.sessionId': { kind: 'filter', value: (w) => w.sessionId },
};

/**
 * Id-like body fields that name nothing of a tenant: client-chosen or project-scoped names, with
 * why. Any other field ending in Id/_id/Ids is unknown and fails the property.
 */
const NOT_REFERENCES: Record<string, string> = {
  deploymentId: 'an opaque label the caller gives, stored as given',
  threadId: 'AG-UI: a key the caller chooses, namespaced by project and caller (threadKey)',
  runId: 'AG-UI: the caller’s run id, echoed',
  parentRunId: 'AG-UI: the caller’s run id, echoed',
  channelUserId: 'the end user id the caller gives',
  channelUId: 'a filter by end-user identities of the caller’s own sessions',
  userId: 'POST /api/v1/sdk/init: the end user id the widget gives',
  CallSid: 'a telephony provider id in a signed webhook',
  AccountSid: 'a telephony provider id in a signed webhook',
  RecordingSid: 'a telephony provider id in a signed webhook',
  id: 'JSON-RPC request id (A2A)',
};

/** Query parameters that filter a read by a tenant's resource. */
const QUERY_REFERENCES: Record<string, Omit<Reference, 'where' | 'name'>> = {
  sessionId: { kind: 'filter', value: (w) => w.sessionId },
  sessionIds: { kind: 'filter', value: (w) => w.sessionId },
};

const ID_LIKE = /(^id$|Id$|_id$|Ids$|_ids$|Sid$)/;

/**
 * Request bodies the schema alone cannot make valid (a channel type, a callback URL), by
 * operationId: the property sends them to A's and B's resources alike, so a refusal of B's is
 * isolation, not validation. A new operation whose minimal body is refused fails the control test,
 * which names it here.
 */
export const BODY_EXAMPLES: Record<string, (n: number) => Record<string, unknown>> = {
  createChannelConnection: (n) => ({
    channelType: 'slack',
    externalIdentifier: `TISO${n}:AISO${n}`,
    credentials: { botToken: 'xoxb-isolation', signingSecret: 'isolation-secret' },
  }),
  agUiRun: (n) => ({
    threadId: `isolation-${n}`,
    runId: `run-${n}`,
    messages: [{ id: `m-${n}`, role: 'user', content: 'hello' }],
  }),
  createWebhookSubscription: () => ({
    displayName: 'isolation',
    callbackUrl: 'https://127.0.0.1:9/isolation',
    events: ['agent.response'],
  }),
};

/** Query parameters that go with a credential in the path: the media token's file and disposition. */
export function credentialQuery(op: OpenApiOperation, caller: TenantWorld): Record<string, string> {
  return op.pathParams.includes('token') && op.path.includes('/media/content/')
    ? { objectIndex: caller.media.objectIndex, disposition: caller.media.disposition }
    : {};
}

/** Query parameters (or body fields) a read needs together (a date range), set on every request that has them. */
export function queryDefaults(): Record<string, string> {
  const now = Date.now();
  return {
    fromDate: new Date(now - 86_400_000).toISOString(),
    toDate: new Date(now + 86_400_000).toISOString(),
  };
}

export class UnknownReferenceError extends Error {
  override readonly name = 'UnknownReferenceError';
}

const lookup = <T>(table: Record<string, T>, path: string, param: string): T | undefined =>
  table[paramContext(path, param)] ?? table[`*/{${param}}`];

export interface OperationReferences {
  references: Reference[];
  fixed: FixedParameter[];
}

/** What the operation names; UnknownReferenceError for a path parameter or id-like body field nobody described. */
export function referencesOf(op: OpenApiOperation): OperationReferences {
  const references: Reference[] = [];
  const fixed: FixedParameter[] = [];
  const unknown: string[] = [];
  for (const name of op.pathParams) {
    const ref = lookup(PATH_REFERENCES, op.path, name);
    const value = lookup(FIXED_PARAMETERS, op.path, name);
    if (ref) references.push({ where: 'path', name, ...ref });
    else if (value) fixed.push({ name, value });
    else unknown.push(`path parameter ${paramContext(op.path, name)}`);
  }
  for (const path of bodyFieldPaths(op.requestBody?.schema)) {
    const name = path.at(-1) as string;
    const dotted = path.join('.');
    const ref = BODY_OVERRIDES[`${op.operationId}.${dotted}`] ?? BODY_REFERENCES[name];
    if (ref) references.push({ where: 'body', name: dotted, ...ref });
    else if (ID_LIKE.test(name) && NOT_REFERENCES[name] === undefined) unknown.push(`body field ${dotted}`);
  }
  for (const param of op.parameters) {
    const ref = param.in === 'query' ? QUERY_REFERENCES[param.name] : undefined;
    if (ref) references.push({ where: 'query', name: param.name, ...ref });
  }
  if (unknown.length > 0) {
    throw new UnknownReferenceError(
      `${op.method} ${op.path}: the tenant-isolation property does not know how to fill ${unknown.join(', ')}; ` +
        'describe it in apps/cli/src/testing/tenantReferences.ts',
    );
  }
  return { references, fixed };
}

/** The properties of an object schema (or of the object alternative of an anyOf/oneOf). */
export function propertiesOf(schema: Schema | undefined): Record<string, Schema> {
  if (schema === undefined) return {};
  const object =
    (schema.properties ? schema : undefined) ??
    ((schema.anyOf ?? schema.oneOf) as Schema[] | undefined)?.find((s) => s.properties !== undefined);
  return (object?.properties as Record<string, Schema> | undefined) ?? {};
}

/**
 * Every named field of a request body, nested objects included (`forwardedProps.projectId`), as
 * paths; array items and open maps have no names to follow.
 */
function bodyFieldPaths(schema: Schema | undefined, prefix: string[] = []): string[][] {
  if (prefix.length >= 4) return [];
  return Object.entries(propertiesOf(schema)).flatMap(([name, child]) => [
    [...prefix, name],
    ...bodyFieldPaths(child, [...prefix, name]),
  ]);
}
