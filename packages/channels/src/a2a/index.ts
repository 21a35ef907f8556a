/**
 * A2A: the JSON-RPC agent-to-agent endpoint, its task store and its adapter: what the rest of
 * @parley/channels and its users import from here.
 */
export { A2A_CHANNEL_TYPE } from './a2aAdapter.js';
export { a2aMigrations } from './a2aMigrations.js';
export { A2A_ERRORS, A2A_PROTOCOL_VERSION, rpcError, rpcFailure } from './a2aProtocol.js';
export { type A2aRpcDeps, answerA2aRpc } from './a2aRpc.js';
export { createA2aTaskStore } from './a2aTaskStore.js';
