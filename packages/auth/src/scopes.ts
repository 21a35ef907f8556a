/**
 * Scopes are what a key is granted (`parley keys create --scope`); permissions
 * are what routes check. This table is the only place one expands to the
 * other, and it is applied when a key is verified, so changing it applies to
 * existing keys.
 */
export const PERMISSIONS = {
  recordingRead: 'recording:read',
  sessionSummaryRead: 'session_summary:read',
  llmLedgerRead: 'llm_ledger:read',
  ingestWrite: 'ingest:write',
  traceRead: 'trace:read',
  chatWrite: 'chat:write',
  agentRead: 'agent:read',
  agentWrite: 'agent:write',
  channelConnectionRead: 'channel_connection:read',
  channelConnectionWrite: 'channel_connection:write',
  httpAsyncSubmit: 'http_async:submit',
  // SDK channels (spec 001 §5 item 5 names these four).
  sdkChannelRead: 'channel:read',
  sdkChannelCreate: 'channel:create',
  sdkChannelUpdate: 'channel:update',
  sdkChannelDelete: 'channel:delete',
  // The projections admin API (GET /api/v1/projections, rebuilds): deployment-wide, not project-scoped.
  projectionRead: 'projection:read',
  projectionRebuild: 'projection:rebuild',
  // The session transcript (issue 10 B): message text of a project's sessions.
  conversationRead: 'conversation:read',
} as const;

export type Permission = (typeof PERMISSIONS)[keyof typeof PERMISSIONS];

export const SCOPES = {
  // Spec 000 §5: recordings.read expands ONLY to recording:read (no transcript,
  // session-content or write access).
  'recordings.read': [PERMISSIONS.recordingRead],
  // The analytics APIs (spec 000 §4.2, §4.3); the spec leaves the name open.
  'analytics.read': [PERMISSIONS.sessionSummaryRead, PERMISSIONS.llmLedgerRead],
  'ingest.write': [PERMISSIONS.ingestWrite],
  // The session trace APIs (spec 001 §4.8): trace events, metrics, analysis, export, generations.
  'traces.read': [PERMISSIONS.traceRead],
  // Conversation endpoints (spec 001 §4.3): send messages, stream replies, end sessions.
  'chat.write': [PERMISSIONS.chatWrite],
  // Agent management (packages/runtime): agents.write also reads, so a key that edits can list.
  'agents.read': [PERMISSIONS.agentRead],
  'agents.write': [PERMISSIONS.agentRead, PERMISSIONS.agentWrite],
  // Channel connections (spec 001 §4.2): channels.write also reads, like agents.write.
  'channels.read': [PERMISSIONS.channelConnectionRead],
  'channels.write': [PERMISSIONS.channelConnectionRead, PERMISSIONS.channelConnectionWrite],
  // HTTP async submit (spec 001 §5 item 1, label not given there): only sending messages to the
  // project's agent through a webhook subscription; it reads and changes nothing else.
  'channels.http_async': [PERMISSIONS.httpAsyncSubmit],
  // SDK channels (spec 001 §4.6): sdk_channels.write manages them (and reads, like channels.write);
  // creating a share or embed token is channel:create.
  'sdk_channels.read': [PERMISSIONS.sdkChannelRead],
  'sdk_channels.write': [
    PERMISSIONS.sdkChannelRead,
    PERMISSIONS.sdkChannelCreate,
    PERMISSIONS.sdkChannelUpdate,
    PERMISSIONS.sdkChannelDelete,
  ],
  // The projections admin API: deployment-wide and operator-only. These act on every project's read
  // models, not the key's project: grant them only to operators' keys (docs/decisions.md).
  'projections.read': [PERMISSIONS.projectionRead],
  'projections.admin': [PERMISSIONS.projectionRead, PERMISSIONS.projectionRebuild],
  // The session transcript GET /api/projects/{projectId}/sessions/{sessionId}/messages (issue 10 B).
  // Its own scope, granting only conversation:read, because message text is end users' content:
  // traces.read and analytics.read keep giving metadata without it, and recordings.read stays
  // recordings only (spec 000 §5). Plural `conversations.read` as the other `<things>.read` scopes.
  'conversations.read': [PERMISSIONS.conversationRead],
} as const satisfies Record<string, readonly Permission[]>;

export type Scope = keyof typeof SCOPES;

export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPES, value);

/**
 * The permissions a set of scopes grants, deduplicated, in table order.
 * Unknown scopes (say, stored by a newer version) grant nothing.
 */
export function expandScopes(scopes: readonly string[]): Permission[] {
  const granted = new Set<Permission>();
  for (const scope of scopes) {
    if (isScope(scope)) for (const permission of SCOPES[scope]) granted.add(permission);
  }
  return [...granted];
}
