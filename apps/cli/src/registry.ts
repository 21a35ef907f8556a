import { authMigrations } from '@parley/auth';
import {
  a2aMigrations,
  channelEmailMigrations,
  channelInboundMigrations,
  channelsMigrations,
  channelsSdkMigrations,
  httpAsyncMigrations,
} from '@parley/channels';
import { downstreamMigrations } from '@parley/downstream';
import { eventStoreMigrations } from '@parley/eventstore';
import type { MigrationSet } from '@parley/platform';
import { eventCountsProjection } from '@parley/projection-event-counts';
import { httpAsyncActivityProjection } from '@parley/projection-http-async-activity';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { recordingsProjection } from '@parley/projection-recordings';
import { type Projection, projectionRunnerMigrations } from '@parley/projection-runner';
import { sessionMessagesProjection } from '@parley/projection-session-messages';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import { tracesProjection } from '@parley/projection-traces';
import { runtimeMigrations } from '@parley/runtime';
import { telephonyMigrations } from '@parley/telephony';

/**
 * What this build of Parley is made of: every package's migrations, in the
 * order they apply, and every registered projection. Adding a package that
 * owns tables or a read model means adding it here.
 */
export const migrationSets: readonly MigrationSet[] = [
  eventStoreMigrations,
  projectionRunnerMigrations,
  authMigrations,
  // After auth: telephony accounts belong to projects.
  telephonyMigrations,
  // After auth: agents belong to projects.
  runtimeMigrations,
  // After auth: channel connections belong to projects.
  channelsMigrations,
  // The inbound pipeline's dedupe and conversation tables (no foreign keys).
  channelInboundMigrations,
  // The email channel's threading, cooldown and reply outcomes (no foreign keys).
  channelEmailMigrations,
  // The A2A task store (no foreign keys; reads channel_inbound_messages at query time).
  a2aMigrations,
  // After auth: HTTP async webhook subscriptions belong to projects.
  httpAsyncMigrations,
  // After auth: SDK channels belong to projects and reference public_api_keys.
  channelsSdkMigrations,
  // The NATS relay's checkpoint (no foreign keys).
  downstreamMigrations,
];

export const projections: readonly Projection[] = [
  eventCountsProjection,
  sessionSummariesProjection,
  llmLedgerProjection,
  recordingsProjection,
  tracesProjection,
  httpAsyncActivityProjection,
  // The session transcript (GET /api/projects/{projectId}/sessions/{sessionId}/messages).
  sessionMessagesProjection,
];
