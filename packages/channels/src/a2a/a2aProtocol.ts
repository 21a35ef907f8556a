/**
 * The A2A protocol's JSON-RPC 2.0 binding (A2A 0.3): the envelope, the error codes and the object
 * shapes Parley answers with. Parsing never throws: a request is either understood or answered with
 * the JSON-RPC error that says why not.
 */

export const A2A_PROTOCOL_VERSION = '0.3.0';

/** JSON-RPC 2.0's codes and A2A's own (-32001..-32005). */
export const A2A_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
} as const;

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** The methods this endpoint answers. */
export const A2A_METHODS = ['message/send', 'tasks/get', 'tasks/cancel'] as const;
export type A2aMethod = (typeof A2A_METHODS)[number];

/**
 * A2A methods that exist but are not offered here: answered -32004 (UnsupportedOperation) rather
 * than -32601, so a client learns the method is known. Streaming is off in the agent card; push
 * notifications are configured per message in message/send's configuration only.
 */
const UNSUPPORTED_METHODS: ReadonlySet<string> = new Set([
  'message/stream',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

export type ParsedRpcRequest =
  | { ok: true; id: string | number; method: A2aMethod; params: Record<string, unknown> }
  | { ok: false; id: JsonRpcId; error: JsonRpcError };

const MAX_ID_LENGTH = 256;

export const rpcError = (code: number, message: string, data?: unknown): JsonRpcError =>
  data === undefined ? { code, message } : { code, message, data };

export const rpcFailure = (id: JsonRpcId, error: JsonRpcError): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error,
});

export const rpcResult = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  result,
});

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request id when it is one JSON-RPC allows (used to answer even an invalid request by its id). */
function idOf(body: Record<string, unknown>): JsonRpcId | undefined {
  const id = body.id;
  if (typeof id === 'string' && id.length <= MAX_ID_LENGTH) return id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  if (id === null) return null;
  return undefined;
}

/**
 * One JSON-RPC request (the body already parsed from JSON; a body that was not JSON is answered
 * -32700 by the caller). Batches are refused (-32600): A2A sends one request per call. A request
 * without an id (a notification) is refused too: every A2A method has a result to answer.
 */
export function parseRpcRequest(body: unknown): ParsedRpcRequest {
  const invalid = (id: JsonRpcId, message: string): ParsedRpcRequest => ({
    ok: false,
    id,
    error: rpcError(A2A_ERRORS.invalidRequest, message),
  });
  if (Array.isArray(body)) return invalid(null, 'Batch requests are not supported');
  if (!isRecord(body)) return invalid(null, 'The request must be a JSON-RPC 2.0 request object');
  const id = idOf(body);
  if (body.jsonrpc !== '2.0') return invalid(id ?? null, 'jsonrpc must be "2.0"');
  if (id === undefined || id === null)
    return invalid(null, `id must be a string (at most ${MAX_ID_LENGTH} characters) or a number`);
  if (typeof body.method !== 'string') return invalid(id, 'method must be a string');
  const method = body.method;
  if (!(A2A_METHODS as readonly string[]).includes(method)) {
    if (UNSUPPORTED_METHODS.has(method)) {
      return {
        ok: false,
        id,
        error: rpcError(A2A_ERRORS.unsupportedOperation, `${method} is not supported by this agent`),
      };
    }
    return { ok: false, id, error: rpcError(A2A_ERRORS.methodNotFound, 'Method not found') };
  }
  if (!isRecord(body.params)) {
    return { ok: false, id, error: rpcError(A2A_ERRORS.invalidParams, 'params must be an object') };
  }
  return { ok: true, id, method: method as A2aMethod, params: body.params };
}

// --- The A2A objects Parley answers with (A2A 0.3 §6) ---

export type A2aTaskState = 'submitted' | 'working' | 'completed' | 'failed' | 'canceled';
export const TERMINAL_STATES: ReadonlySet<A2aTaskState> = new Set(['completed', 'failed', 'canceled']);

export type A2aPart =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> }
  | { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> }
  | { kind: 'file'; file: Record<string, unknown>; metadata?: Record<string, unknown> };

export interface A2aMessage {
  kind: 'message';
  role: 'user' | 'agent';
  messageId: string;
  parts: A2aPart[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface A2aArtifact {
  artifactId: string;
  name?: string;
  parts: A2aPart[];
}

export interface A2aTask {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: A2aTaskState; timestamp: string; message?: A2aMessage };
  history?: A2aMessage[];
  artifacts?: A2aArtifact[];
}
