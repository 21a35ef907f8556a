import { performance } from 'node:perf_hooks';
import {
  type ActionSet,
  type ContainmentType,
  completeUsage,
  type Environment,
  type EventDataInput,
  sessionStream,
  toAppend,
} from '@parley/events';
import { type EventToAppend, WrongExpectedVersionError } from '@parley/eventstore';
import { type Agent, type AgentStore, createAgentStore } from '../agents/store.js';
import {
  ProjectNotFoundError,
  ProviderFailedError,
  SessionEndedError,
  SessionNotFoundError,
} from '../errors.js';
import type { LlmMessage, LlmProvider, LlmResponse, ToolDefinition } from '../providers/types.js';
import { newLlmCallId, newMessageId, newSessionId, newSpanId, newTraceId } from './ids.js';
import { renderPrompt } from './messageMetadata.js';
import { loadSession } from './session.js';
import { runBuiltinTool } from './tools.js';
import type { RunTurnOptions, Runtime, RuntimeDeps, TurnRequest, TurnResult, TurnUsage } from './types.js';

/** Model calls in one turn: the first, then one after each round of tool results. */
export const MAX_LLM_CALLS_PER_TURN = 5;
/** What the agent says when a guardrail blocks and the agent has no blockedReply. */
export const DEFAULT_BLOCKED_REPLY = "Sorry, I can't help with that.";
/** What the agent says when the turn ran out of model calls (tool loop). */
export const FALLBACK_REPLY = "Sorry, I couldn't complete that request.";
/** How many times an append is retried when another writer (another process) moved the stream. */
const APPEND_ATTEMPTS = 10;
/** Tool results and arguments kept in trace attributes are cut to this many characters. */
const ATTRIBUTE_TEXT_LIMIT = 2000;

type TraceData = EventDataInput<'TraceEventRecorded'>;
type LlmCallData = EventDataInput<'LlmCallRecorded'>;

interface ProjectRow {
  tenant_id: string;
  settings: { payloads?: { store?: boolean } } | null;
}

const cut = (text: string): string =>
  text.length <= ATTRIBUTE_TEXT_LIMIT ? text : `${text.slice(0, ATTRIBUTE_TEXT_LIMIT)}…`;

const addUsage = (a: TurnUsage, b: TurnUsage): TurnUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});
const ZERO_USAGE: TurnUsage = completeUsage({ inputTokens: 0, completionTokens: 0 });

/** JSON-safe copy (drops undefined, functions); payloads and attributes must be plain JSON. */
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const isAbort = (signal: AbortSignal | undefined, err: unknown): boolean =>
  signal?.aborted === true || (err instanceof Error && err.name === 'AbortError');

/**
 * The turn engine (packages/runtime README "Turns"). A turn is two appends to
 * `session-<sessionId>`: first the user's message (and SessionStarted for a new session), then,
 * in one append, everything the turn produced: its trace events, its LlmCallRecorded facts, the
 * AgentReplied and, when the agent ended the conversation, SessionEnded.
 */
export function createRuntime(deps: RuntimeDeps): Runtime {
  const { pool, store, providers, priceCards, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const agents: AgentStore = createAgentStore(pool);

  async function loadProject(projectId: string, tenantId: string): Promise<{ storePayloads: boolean }> {
    const { rows } = await pool.query<ProjectRow>('select tenant_id, settings from projects where id = $1', [
      projectId,
    ]);
    const row = rows[0];
    if (row === undefined || row.tenant_id !== tenantId) throw new ProjectNotFoundError(projectId);
    return { storePayloads: row.settings?.payloads?.store !== false };
  }

  /**
   * Appends at the expected revision; when another writer got there first, re-reads the stream
   * and appends after it (the batch stays contiguous). `refresh` returns the revision to retry at,
   * or throws to give up.
   */
  async function appendTurnEvents(
    stream: string,
    events: EventToAppend[],
    expected: bigint | 'no_stream',
    refresh: () => Promise<bigint>,
  ): Promise<bigint> {
    let expectedRevision: bigint | 'no_stream' = expected;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await store.append(stream, events, { expectedRevision })).nextRevision;
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError) || attempt >= APPEND_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
        expectedRevision = await refresh();
      }
    }
  }

  /**
   * Turns of one session run one after another in this process (the next message sees the
   * previous reply); across processes, appends retry at the stream's new revision.
   */
  const sessionQueues = new Map<string, Promise<unknown>>();
  function serialized<T>(sessionId: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (sessionId === undefined) return fn();
    const previous = sessionQueues.get(sessionId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => {});
    sessionQueues.set(sessionId, tail);
    void tail.then(() => {
      if (sessionQueues.get(sessionId) === tail) sessionQueues.delete(sessionId);
    });
    return run;
  }

  function runTurn(req: TurnRequest, options: RunTurnOptions = {}): Promise<TurnResult> {
    return serialized(req.sessionId, () => runTurnNow(req, options));
  }

  async function runTurnNow(req: TurnRequest, options: RunTurnOptions): Promise<TurnResult> {
    const t0 = performance.now();
    const receivedAt = now();
    const { signal, onEvent } = options;
    const project = await loadProject(req.projectId, req.tenantId);

    // Who answers, and where: an existing session's state, or a new session's settings.
    let sessionId: string;
    let created: boolean;
    let agent: Agent;
    let channel: string;
    let channelType: string | undefined;
    let environment: Environment;
    let history: LlmMessage[];
    let revision: bigint | 'no_stream';
    if (req.sessionId !== undefined) {
      sessionId = req.sessionId;
      const state = await loadSession(store, sessionId);
      if (state === null || state.projectId !== req.projectId) throw new SessionNotFoundError(sessionId);
      if (state.endedStatus !== null) throw new SessionEndedError(sessionId, state.endedStatus);
      created = false;
      agent = await agents.resolve(req.projectId, state.agentName);
      channel = state.channel;
      channelType = state.channelType;
      environment = state.environment;
      history = state.history;
      revision = state.revision;
    } else {
      sessionId = newSessionId();
      created = true;
      agent = await agents.resolve(req.projectId, req.agentName);
      channel = req.channel ?? 'api';
      channelType = req.channelType;
      environment = req.environment ?? agent.environment ?? 'dev';
      history = [];
      revision = 'no_stream';
    }
    // Resolve the provider before recording anything: a misconfigured agent records no message.
    const provider: LlmProvider = providers.get(agent.provider);

    const stream = sessionStream(sessionId);
    const userMessageId = newMessageId();
    const replyMessageId = newMessageId();
    const metadata = { tenantId: req.tenantId, correlationId: userMessageId };
    const scope = { sessionId, projectId: req.projectId };

    // Append 1: the user's message (with SessionStarted for a new session).
    const first: EventToAppend[] = [];
    if (created) {
      first.push(
        toAppend(
          'SessionStarted',
          {
            ...scope,
            tenantId: req.tenantId,
            ...(agent.deploymentId === null ? {} : { deploymentId: agent.deploymentId }),
            agentName: agent.name,
            channel,
            ...(channelType === undefined ? {} : { channelType }),
            environment,
            ...(req.channelUserId === undefined ? {} : { channelUserId: req.channelUserId }),
            traceDimensions: {},
            startedAt: receivedAt.toISOString(),
          },
          metadata,
        ),
      );
    }
    first.push(
      toAppend(
        'MessageReceived',
        {
          ...scope,
          messageId: userMessageId,
          text: req.message,
          ...(req.externalMessageId === undefined ? {} : { externalMessageId: req.externalMessageId }),
          ...(req.actionEvent === undefined ? {} : { actionEvent: json(req.actionEvent) as never }),
          ...(req.channelMetadata === undefined
            ? {}
            : { channelMetadata: json(req.channelMetadata) as never }),
          ...(req.messageMetadata === undefined
            ? {}
            : { messageMetadata: json(req.messageMetadata) as never }),
          ...(req.sentAt === undefined ? {} : { sentAt: req.sentAt }),
          receivedAt: receivedAt.toISOString(),
        },
        metadata,
      ),
    );
    const refreshOpen = async (): Promise<bigint> => {
      const state = await loadSession(store, sessionId);
      if (state === null) throw new SessionNotFoundError(sessionId);
      if (state.endedStatus !== null) throw new SessionEndedError(sessionId, state.endedStatus);
      return state.revision;
    };
    revision = await appendTurnEvents(stream, first, revision, refreshOpen);

    // The agent loop. Everything below is collected and appended at once.
    const traceId = newTraceId();
    const rootSpanId = newSpanId();
    const traces: TraceData[] = [];
    const llmCalls: LlmCallData[] = [];
    const trace = (
      event: Omit<TraceData, 'sessionId' | 'projectId' | 'traceId' | 'spanId' | 'parentSpanId'>,
    ) => {
      const spanId = newSpanId();
      traces.push({ ...scope, traceId, spanId, parentSpanId: rootSpanId, ...event });
      return spanId;
    };
    const at = () => now().toISOString();

    if (created) {
      trace({
        eventType: 'state_change',
        name: 'session_state',
        status: 'ok',
        startedAt: receivedAt.toISOString(),
        attributes: { from: null, to: 'active' },
      });
    }

    let usage = ZERO_USAGE;
    let replyText = '';
    let actionSet: ActionSet | undefined;
    let usedFallback = false;
    let isLlmGenerated = true;
    let ending: {
      status: 'completed' | 'escalated' | 'abandoned';
      containmentType: ContainmentType;
      reason: string;
    } | null = null;
    let failure: ProviderFailedError | null = null;
    const answeringAgent = agent;

    // Input guardrail: the agent's blocked terms.
    const blockedTerms = agent.guardrails.blockedTerms ?? [];
    let blocked = false;
    if (blockedTerms.length > 0) {
      const started = performance.now();
      const lower = req.message.toLowerCase();
      const hit = blockedTerms.find((term) => lower.includes(term.toLowerCase()));
      blocked = hit !== undefined;
      trace({
        eventType: 'guardrail_eval',
        name: 'blocked_terms',
        status: blocked ? 'blocked' : 'ok',
        startedAt: at(),
        durationMs: Math.round(performance.now() - started),
        attributes: { stage: 'input', terms: blockedTerms.length },
      });
      if (blocked) {
        replyText = agent.guardrails.blockedReply ?? DEFAULT_BLOCKED_REPLY;
        isLlmGenerated = false;
      }
    }

    const messages: LlmMessage[] = [
      ...(agent.systemPrompt === ''
        ? []
        : [{ role: 'system' as const, content: renderPrompt(agent.systemPrompt, req.messageMetadata) }]),
      ...history,
      { role: 'user', content: req.message },
    ];
    const tools: ToolDefinition[] = agent.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
    const offered = new Set(tools.map((t) => t.name));
    let streamedChars = 0;
    const maxReplyChars = agent.guardrails.maxReplyChars;
    const onDelta =
      req.stream === true && onEvent !== undefined
        ? (delta: string) => {
            // Deltas past the output guardrail's limit are not sent (the recorded reply is cut too).
            const room = maxReplyChars === undefined ? delta.length : maxReplyChars - streamedChars;
            if (room <= 0) return;
            const part = delta.slice(0, room);
            streamedChars += part.length;
            onEvent({ type: 'text_delta', messageId: replyMessageId, delta: part });
          }
        : undefined;

    for (let call = 0; !blocked && failure === null; call++) {
      if (call >= MAX_LLM_CALLS_PER_TURN) {
        trace({
          eventType: 'error',
          name: 'llm_call_limit',
          status: 'error',
          startedAt: at(),
          attributes: { code: 'llm_call_limit', limit: MAX_LLM_CALLS_PER_TURN },
        });
        replyText = FALLBACK_REPLY;
        usedFallback = true;
        isLlmGenerated = false;
        break;
      }
      const callId = newLlmCallId();
      const startedAt = now();
      const started = performance.now();
      let response: LlmResponse;
      let aborted = false;
      try {
        response = await provider.complete(
          {
            model: agent.model,
            messages,
            ...(tools.length === 0 ? {} : { tools }),
            stream: req.stream === true,
            ...(signal === undefined ? {} : { signal }),
          },
          onDelta,
        );
      } catch (err) {
        aborted = isAbort(signal, err);
        const latencyMs = Math.round(performance.now() - started);
        response = {
          text: '',
          toolCalls: [],
          finishReason: 'error',
          usage: ZERO_USAGE,
          latencyMs,
          timeToFirstTokenMs: latencyMs,
          streamingUsed: req.stream === true,
          statusCode: 0,
          provider: provider.name,
          model: agent.model,
          error: aborted
            ? { code: 'aborted', message: 'the turn was aborted' }
            : { code: 'provider_exception', message: err instanceof Error ? err.message : String(err) },
        };
        if (!aborted) logger.warn({ err, provider: provider.name, sessionId }, 'LLM provider threw');
      }
      const failed = response.finishReason === 'error';
      const callUsage = completeUsage(response.usage);
      usage = addUsage(usage, callUsage);
      const card = priceCards.current();
      const priced = priceCards.cost(card, response.model, callUsage);
      const spanId = trace({
        eventType: 'llm_call',
        name: response.model,
        status: failed ? 'error' : 'ok',
        llmCallId: callId,
        startedAt: startedAt.toISOString(),
        durationMs: response.latencyMs,
        attributes: {
          provider: response.provider,
          model: response.model,
          finishReason: response.finishReason,
          inputTokens: callUsage.inputTokens,
          outputTokens: callUsage.outputTokens,
          streamingUsed: response.streamingUsed,
        },
      });
      llmCalls.push({
        callId,
        projectId: req.projectId,
        tenantId: req.tenantId,
        sessionId,
        provider: response.provider,
        model: response.model,
        agentName: agent.name,
        environment,
        channel,
        ...(channelType === undefined ? {} : { channelType }),
        status: failed ? 'failed' : 'success',
        statusCode: response.statusCode,
        streamingUsed: response.streamingUsed,
        cost: priced.cost,
        priceCardVersion: priced.priceCardVersion,
        source: 'runtime',
        sourceSubtype: call === 0 ? 'response_generation' : 'tool_use_iteration',
        traceId,
        spanId,
        startedAt: startedAt.toISOString(),
        usage: callUsage,
        latencyMs: response.latencyMs,
        timeToFirstTokenMs: response.timeToFirstTokenMs,
        ...(project.storePayloads
          ? {
              payload: json({
                prompt: { model: agent.model, messages, tools },
                response: {
                  text: response.text,
                  toolCalls: response.toolCalls,
                  finishReason: response.finishReason,
                },
              }) as LlmCallData['payload'],
            }
          : {}),
      });
      if (failed) {
        trace({
          eventType: 'error',
          name: response.error?.code ?? 'provider_error',
          status: 'error',
          startedAt: at(),
          attributes: {
            code: response.error?.code ?? 'provider_error',
            message: cut(response.error?.message ?? ''),
            provider: response.provider,
            statusCode: response.statusCode,
          },
        });
        failure = new ProviderFailedError(response.provider, response.statusCode, { aborted });
        break;
      }

      // Directives (scripted provider): act on them in the order given.
      for (const directive of response.directives ?? []) {
        switch (directive.kind) {
          case 'guardrail':
            trace({
              eventType: 'guardrail_eval',
              name: directive.name,
              status: directive.outcome === 'blocked' ? 'blocked' : 'ok',
              startedAt: at(),
              durationMs: 0,
              attributes: {
                stage: 'output',
                ...(directive.reason === undefined ? {} : { reason: directive.reason }),
              },
            });
            break;
          case 'decision':
            trace({
              eventType: 'decision',
              name: directive.choice ?? directive.decisionKind,
              decisionKind: directive.decisionKind,
              status: 'ok',
              startedAt: at(),
              durationMs: 0,
              attributes: directive.choice === undefined ? {} : { choice: directive.choice },
            });
            break;
          case 'state_change':
            trace({
              eventType: 'state_change',
              name: directive.name,
              status: 'ok',
              startedAt: at(),
              attributes: directive.value === undefined ? {} : { value: directive.value },
            });
            break;
          case 'handoff': {
            trace({
              eventType: 'decision',
              name: directive.agentName,
              decisionKind: 'handoff',
              status: 'ok',
              startedAt: at(),
              durationMs: 0,
              attributes: {
                from: agent.name,
                to: directive.agentName,
                ...(directive.reason === undefined ? {} : { reason: directive.reason }),
              },
            });
            // The handoff applies from the next turn: this turn's reply is the handing-off agent's.
            let target: Agent | null = null;
            try {
              target =
                directive.agentName === agent.name
                  ? null
                  : await agents.resolve(req.projectId, directive.agentName);
              if (target !== null) providers.get(target.provider);
            } catch (err) {
              logger.debug({ err, sessionId }, 'handoff target not usable');
              target = null;
            }
            trace({
              eventType: 'handoff',
              name: directive.agentName,
              status: target === null ? 'error' : 'ok',
              startedAt: at(),
              durationMs: 0,
              attributes: {
                from: agent.name,
                to: directive.agentName,
                ...(target === null ? { code: 'agent_unavailable' } : {}),
              },
            });
            break;
          }
          case 'end':
            ending = {
              status: directive.status,
              containmentType: directive.containmentType,
              reason: directive.reason,
            };
            break;
          case 'action_set':
            actionSet = directive.actionSet;
            break;
          default:
            break;
        }
      }

      if (response.toolCalls.length === 0) {
        replyText = response.text;
        break;
      }
      // Tool round: run each call, feed the results back, ask the model again.
      messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
      for (const toolCall of response.toolCalls) {
        const toolStarted = performance.now();
        const toolStartedAt = at();
        trace({
          eventType: 'tool_call',
          name: toolCall.name,
          status: 'ok',
          startedAt: toolStartedAt,
          attributes: { toolCallId: toolCall.id, arguments: cut(toolCall.arguments) },
        });
        const outcome = offered.has(toolCall.name)
          ? runBuiltinTool(toolCall.name, toolCall.arguments)
          : { ok: false as const, error: 'unknown_tool' };
        const content = JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error });
        trace({
          eventType: 'tool_result',
          name: toolCall.name,
          status: outcome.ok ? 'ok' : 'error',
          startedAt: toolStartedAt,
          durationMs: Math.round(performance.now() - toolStarted),
          attributes: {
            toolCallId: toolCall.id,
            ...(outcome.ok ? { result: cut(content) } : { code: outcome.error }),
          },
        });
        messages.push({ role: 'tool', content, toolCallId: toolCall.id });
      }
    }

    // Output guardrail: the reply's length.
    if (failure === null && maxReplyChars !== undefined) {
      const over = replyText.length > maxReplyChars;
      trace({
        eventType: 'guardrail_eval',
        name: 'max_reply_chars',
        status: over ? 'blocked' : 'ok',
        startedAt: at(),
        durationMs: 0,
        attributes: { stage: 'output', limit: maxReplyChars, length: replyText.length },
      });
      if (over) replyText = replyText.slice(0, maxReplyChars);
    }
    if (ending !== null) {
      trace({
        eventType: 'state_change',
        name: 'session_state',
        status: 'ok',
        startedAt: at(),
        attributes: { from: 'active', to: ending.status, containmentType: ending.containmentType },
      });
    }

    // The root span, first in the batch so that it precedes its children in the log.
    const repliedAt = now();
    const root: TraceData = {
      ...scope,
      traceId,
      spanId: rootSpanId,
      eventType: 'response',
      name: answeringAgent.name,
      status: failure === null ? 'ok' : 'error',
      startedAt: receivedAt.toISOString(),
      durationMs: Math.max(0, Math.round(performance.now() - t0)),
      attributes: {
        userMessageId,
        ...(failure === null ? { replyMessageId } : { code: failure.code }),
        llmCalls: llmCalls.length,
      },
    };
    const batch: EventToAppend[] = [
      toAppend('TraceEventRecorded', root, metadata),
      ...traces.map((t) => toAppend('TraceEventRecorded', t, metadata)),
      ...llmCalls.map((c) => toAppend('LlmCallRecorded', c, metadata)),
    ];
    if (failure === null) {
      batch.push(
        toAppend(
          'AgentReplied',
          {
            ...scope,
            messageId: replyMessageId,
            inReplyTo: userMessageId,
            agentName: answeringAgent.name,
            text: replyText,
            ...(actionSet === undefined ? {} : { actionSet }),
            usedFallback,
            isLlmGenerated,
            repliedAt: repliedAt.toISOString(),
          },
          metadata,
        ),
      );
    }
    // An endSession that raced this turn already ended the session: the turn is still recorded,
    // but it does not end the session a second time.
    let endedByOther = false;
    const refreshAny = async (): Promise<bigint> => {
      const state = await loadSession(store, sessionId);
      if (state === null) throw new SessionNotFoundError(sessionId);
      if (state.endedStatus !== null && !endedByOther) {
        endedByOther = true;
        const last = batch.at(-1);
        if (last?.type === 'SessionEnded') batch.pop();
      }
      return state.revision;
    };
    if (failure === null && ending !== null) {
      batch.push(
        toAppend(
          'SessionEnded',
          {
            ...scope,
            status: ending.status,
            containmentType: ending.containmentType,
            reason: ending.reason,
            endedAt: repliedAt.toISOString(),
          },
          metadata,
        ),
      );
    }
    await appendTurnEvents(stream, batch, revision, refreshAny);

    if (failure !== null) throw failure;
    onEvent?.({ type: 'usage', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    return {
      sessionId,
      created,
      userMessageId,
      agentName: answeringAgent.name,
      reply: {
        messageId: replyMessageId,
        text: replyText,
        ...(actionSet === undefined ? {} : { actionSet }),
        usedFallback,
        isLlmGenerated,
      },
      llmCalls: llmCalls.length,
      usage,
      latencyMs: Math.max(0, Math.round(performance.now() - t0)),
      ended:
        ending === null || endedByOther
          ? null
          : { status: ending.status, containmentType: ending.containmentType },
    };
  }

  async function endSession(
    projectId: string,
    sessionId: string,
    reason = 'api',
  ): Promise<{ ended: boolean; status: string }> {
    const stream = sessionStream(sessionId);
    for (let attempt = 1; ; attempt++) {
      const state = await loadSession(store, sessionId);
      if (state === null || state.projectId !== projectId) throw new SessionNotFoundError(sessionId);
      if (state.endedStatus !== null) return { ended: false, status: state.endedStatus };
      const endedAt = now().toISOString();
      const metadata = state.tenantId === undefined ? {} : { tenantId: state.tenantId };
      const traceId = newTraceId();
      try {
        await store.append(
          stream,
          [
            toAppend(
              'TraceEventRecorded',
              {
                sessionId,
                projectId,
                traceId,
                spanId: newSpanId(),
                eventType: 'state_change',
                name: 'session_state',
                status: 'ok',
                startedAt: endedAt,
                attributes: { from: 'active', to: 'ended', reason },
              },
              metadata,
            ),
            toAppend('SessionEnded', { sessionId, projectId, status: 'ended', reason, endedAt }, metadata),
          ],
          { expectedRevision: state.revision },
        );
        return { ended: true, status: 'ended' };
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError) || attempt >= APPEND_ATTEMPTS) throw err;
      }
    }
  }

  return { runTurn, endSession };
}
