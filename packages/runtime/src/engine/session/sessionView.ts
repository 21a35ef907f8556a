import type { Environment, EventData, ParleyEvent } from '@parley/events';
import type { LlmMessage } from '../../providers/types.js';

/** A suspended tool call not resumed yet (its ToolCallSuspended, as recorded). */
export type PendingSuspension = EventData<'ToolCallSuspended'>;

/** A message of the conversation, with its id (a resumed turn replays the history before its message). */
export interface HistoryEntry {
  messageId: string;
  message: LlmMessage;
}

/** What a turn needs to know about a session: the fold of its events (evolveSession). */
export interface SessionView {
  projectId: string;
  tenantId: string | undefined;
  /** The agent that answers next: the starting agent, or the last AgentHandedOff's target. */
  agentName: string;
  /** Where the current agent lives: a remote agent (A2A) answers without a model call here. */
  agentTarget: { kind: 'local' } | { kind: 'remote'; url: string; via: string };
  channel: string;
  channelType: string | undefined;
  channelUserId: string | undefined;
  environment: Environment;
  /** The end state, when the session has ended. */
  endedStatus: string | null;
  /** The conversation so far (user and agent messages, oldest first), every message. */
  history: HistoryEntry[];
  /** Suspended tool calls waiting for their callback, by suspension id. */
  suspensions: Map<string, PendingSuspension>;
  /** Revision of the stream's last event (the next append's expected revision). */
  revision: bigint;
}

/**
 * One event folded into the view. Pure; every event type is named (a new type fails to compile
 * until it is decided whether a turn cares about it). Events before SessionStarted are ignored.
 */
export function evolveSession(view: SessionView | null, event: ParleyEvent): SessionView | null {
  if (event.type === 'SessionStarted') {
    const d = event.data;
    return {
      projectId: d.projectId,
      tenantId: d.tenantId,
      agentName: d.agentName,
      agentTarget: { kind: 'local' },
      channel: d.channel,
      channelType: d.channelType,
      channelUserId: d.channelUserId,
      environment: d.environment,
      endedStatus: null,
      history: [],
      suspensions: new Map(),
      revision: view?.revision ?? -1n,
    };
  }
  if (view === null) return null;
  switch (event.type) {
    case 'MessageReceived':
      view.history.push({
        messageId: event.data.messageId,
        message: { role: 'user', content: event.data.text },
      });
      return view;
    case 'AgentReplied':
      view.history.push({
        messageId: event.data.messageId,
        message: { role: 'assistant', content: event.data.text },
      });
      return view;
    case 'AgentHandedOff':
      view.agentName = event.data.toAgent;
      view.agentTarget =
        event.data.target === 'remote' && event.data.remoteUrl !== undefined
          ? { kind: 'remote', url: event.data.remoteUrl, via: event.data.fromAgent }
          : { kind: 'local' };
      return view;
    case 'ToolCallSuspended':
      view.suspensions.set(event.data.suspensionId, event.data);
      return view;
    case 'ToolCallResumed':
      view.suspensions.delete(event.data.suspensionId);
      return view;
    case 'SessionEnded':
      view.endedStatus = event.data.status;
      return view;
    case 'SessionArchived':
      view.endedStatus = 'archived';
      return view;
    // Telemetry, delivery and lifecycle facts that change nothing a turn reads.
    case 'SessionIdled':
    case 'TraceEventRecorded':
    case 'LlmCallRecorded':
    case 'ChannelMessageSent':
    case 'ChannelSendFailed':
    case 'ChannelSendSuppressed':
    case 'ChannelDeliveryReported':
    case 'HttpAsyncMessageAccepted':
    case 'HttpAsyncCallbackQueued':
    case 'HttpAsyncCallbackAttempted':
    case 'HttpAsyncCallbackDelivered':
    case 'HttpAsyncCallbackDeadLettered':
    case 'RecordingStarted':
    case 'RecordingCompleted':
    case 'RecordingFileStored':
    case 'RecordingFailed':
    case 'RecordingDeleted':
    case 'RecordingRetentionExpired':
    case 'RecordingMediaDeleted':
    case 'RecordingLegalHoldPlaced':
    case 'RecordingLegalHoldLifted':
    case 'AuditRecorded':
    case 'VoiceCallStatusChanged':
      return view;
    default: {
      const exhaustive: never = event;
      throw new Error(`unhandled event type ${(exhaustive as { type: string }).type}`);
    }
  }
}

/** Messages of earlier turns sent to the model; older ones are left out. */
export const HISTORY_LIMIT = 50;

/** The last HISTORY_LIMIT messages before (not including) `beforeMessageId`, or of the whole history. */
export function historyForModel(view: SessionView, beforeMessageId?: string): LlmMessage[] {
  const end =
    beforeMessageId === undefined
      ? view.history.length
      : view.history.findIndex((entry) => entry.messageId === beforeMessageId);
  const upTo = end < 0 ? view.history.length : end;
  return view.history.slice(Math.max(0, upTo - HISTORY_LIMIT), upTo).map((entry) => entry.message);
}
