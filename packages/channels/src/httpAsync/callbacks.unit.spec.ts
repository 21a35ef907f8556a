import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agentResponsePayload,
  agentStatusPayload,
  type CallbackTurnOutcome,
  legacyResponsePayload,
  legacyStatusPayload,
  provenanceKind,
  responseBodyFor,
  statusBodyFor,
} from './callbacks.js';
import {
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  legacyResponsePayloadSchema,
  legacyStatusPayloadSchema,
} from './payloads.js';

const message = { messageId: 'ham_1', sessionKey: 'ha:sub_1:abc', metadata: { ref: 'x' } };
const replied = (
  extra: Partial<Extract<CallbackTurnOutcome, { kind: 'replied' }>> = {},
): CallbackTurnOutcome => ({
  kind: 'replied',
  sessionId: 'ses_1',
  created: false,
  text: 'Hello',
  usedFallback: false,
  isLlmGenerated: true,
  llmCalls: 1,
  ended: false,
  ...extra,
});

describe('agent.response provenance', () => {
  it('says llm_generated, fallback, static or none, with the disclaimer only for model text', () => {
    const meta = (o: CallbackTurnOutcome) => agentResponsePayload(message, o, 'dlv_1').response_metadata;
    expect(meta(replied())).toEqual({
      isLlmGenerated: true,
      responseProvenance: {
        schemaVersion: 1,
        kind: 'llm_generated',
        disclaimerRequired: true,
        usedLlmInternally: true,
      },
    });
    // The fallback after a tool loop: fixed text, but the model was called.
    expect(meta(replied({ usedFallback: true, isLlmGenerated: false, llmCalls: 5 }))).toEqual({
      isLlmGenerated: false,
      responseProvenance: {
        schemaVersion: 1,
        kind: 'fallback',
        disclaimerRequired: false,
        usedLlmInternally: true,
      },
    });
    // A guardrail's blocked-input reply: no model call at all.
    expect(meta(replied({ isLlmGenerated: false, llmCalls: 0 }))).toEqual({
      isLlmGenerated: false,
      responseProvenance: {
        schemaVersion: 1,
        kind: 'static',
        disclaimerRequired: false,
        usedLlmInternally: false,
      },
    });
    expect(meta({ kind: 'failed', sessionId: null })).toEqual({
      isLlmGenerated: false,
      responseProvenance: {
        schemaVersion: 1,
        kind: 'none',
        disclaimerRequired: false,
        usedLlmInternally: false,
      },
    });
    expect(provenanceKind(replied({ usedFallback: true }))).toBe('fallback');
  });

  it('builds bodies every schema accepts, whatever the outcome', () => {
    const outcome = fc.oneof(
      fc.record({
        kind: fc.constant('replied' as const),
        sessionId: fc.string({ minLength: 1 }),
        created: fc.boolean(),
        text: fc.string(),
        usedFallback: fc.boolean(),
        isLlmGenerated: fc.boolean(),
        llmCalls: fc.nat(10),
        ended: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('failed' as const), sessionId: fc.option(fc.string({ minLength: 1 })) }),
    );
    const status = fc.constantFrom('processing' as const, 'completed' as const, 'failed' as const);
    fc.assert(
      fc.property(outcome, status, fc.dictionary(fc.string(), fc.jsonValue()), (o, s, metadata) => {
        const m = { ...message, metadata };
        const r = agentResponsePayloadSchema.parse(responseBodyFor('message', m, o, 'dlv_1'));
        expect(r.outcome.status).toBe(o.kind === 'replied' ? 'ok' : 'error');
        expect(r.response_metadata.responseProvenance.disclaimerRequired).toBe(
          r.response_metadata.isLlmGenerated,
        );
        expect(r.trace_context).toEqual({ session_id: o.sessionId, delivery: 'dlv_1' });
        legacyResponsePayloadSchema.parse(responseBodyFor('send', m, o, 'dlv_1'));
        const t = { status: s, sessionId: o.sessionId, occurredAt: new Date(0) };
        agentStatusPayloadSchema.parse(statusBodyFor('message', m, t));
        legacyStatusPayloadSchema.parse(statusBodyFor('send', m, t));
      }),
    );
  });

  it('builds the status and legacy bodies with every field', () => {
    const when = new Date('2026-01-02T03:04:05.000Z');
    expect(
      agentStatusPayload(message, {
        status: 'completed',
        sessionId: 'ses_1',
        occurredAt: when,
        sessionEnded: true,
      }),
    ).toEqual({
      message_id: 'ham_1',
      session_key: 'ha:sub_1:abc',
      session_id: 'ses_1',
      status: 'completed',
      previous_status: 'processing',
      occurred_at: '2026-01-02T03:04:05.000Z',
      reason: null,
      session_ended: true,
      metadata: { ref: 'x' },
    });
    expect(
      agentStatusPayload(message, { status: 'failed', sessionId: null, occurredAt: when }),
    ).toMatchObject({
      previous_status: 'processing',
      reason: 'turn_failed',
      session_ended: false,
    });
    expect(legacyResponsePayload(message, replied())).toEqual({
      eventType: 'agent.response',
      sessionId: 'ses_1',
      messageId: 'ham_1',
      text: 'Hello',
      metadata: { ref: 'x' },
    });
    expect(legacyStatusPayload(message, { status: 'processing', sessionId: null, occurredAt: when })).toEqual(
      {
        eventType: 'agent.status',
        sessionId: null,
        messageId: 'ham_1',
        status: 'processing',
        occurredAt: '2026-01-02T03:04:05.000Z',
        metadata: { ref: 'x' },
      },
    );
  });
});
