import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareItems, retentionExpiresAt } from './prepareItems.js';

const scope = { tenantId: 'ten_1', projectId: 'proj_1' };
const url = 'https://recordings.example.com/RE1.wav';

describe('recording ingest items', () => {
  it('appends recording.started to recording-<id> with the tenant and the server-computed retention', () => {
    const [prepared] = prepareItems(
      [
        {
          id: 'r1-start',
          type: 'recording.started',
          data: { recordingId: 'RE1', sessionId: 'ses_1', callId: 'CA1', startedAt: '2026-11-21T08:00:00Z' },
        },
      ],
      { ...scope, recordingRetentionDays: 7 },
      (raw) => raw,
    );
    expect(prepared).toMatchObject({
      ok: true,
      stream: 'recording-RE1',
      event: {
        type: 'RecordingStarted',
        data: {
          recordingId: 'RE1',
          projectId: 'proj_1',
          tenantId: 'ten_1',
          retentionExpiresAt: '2026-11-28T08:00:00.000Z',
        },
      },
    });
  });

  it('has no retention without a retention setting, and refuses a client-sent retentionExpiresAt', () => {
    const item = {
      id: 'r2',
      type: 'recording.started',
      data: { recordingId: 'RE2', sessionId: 'ses_1', callId: 'CA1', startedAt: '2026-11-21T08:00:00Z' },
    };
    const [kept] = prepareItems([item], { ...scope, recordingRetentionDays: null }, (raw) => raw);
    expect(kept?.ok && kept.event.data).not.toHaveProperty('retentionExpiresAt');
    const [sneaky] = prepareItems(
      [{ ...item, data: { ...item.data, retentionExpiresAt: '2999-01-01T00:00:00Z' } }],
      { ...scope, recordingRetentionDays: 1 },
      (raw) => raw,
    );
    expect(sneaky?.ok && sneaky.event.data.retentionExpiresAt).toBe('2026-11-22T08:00:00.000Z');
  });

  it('accepts completed recordings with recording_server and external sources, and failures', () => {
    const prepared = prepareItems(
      [
        {
          id: 'c',
          type: 'recording.completed',
          data: {
            recordingId: 'RE3',
            sessionId: 'ses_1',
            callId: 'CA1',
            durationSeconds: 3.5,
            files: [
              { objectIndex: 0, channel: 'mixed', source: { kind: 'recording_server', url } },
              {
                objectIndex: 1,
                channel: 'caller',
                source: { kind: 'external', url: 'https://cdn.example.com/a.wav' },
              },
            ],
            completedAt: '2026-11-21T08:01:00Z',
          },
        },
        {
          id: 'f',
          type: 'recording.failed',
          data: {
            recordingId: 'RE3',
            sessionId: 'ses_1',
            objectIndex: 1,
            reason: 'auth_failed',
            failedAt: '2026-11-21T08:02:00Z',
          },
        },
        {
          id: 'bad',
          type: 'recording.completed',
          data: {
            recordingId: 'RE3',
            sessionId: 'ses_1',
            callId: 'CA1',
            files: [{ objectIndex: 0, source: { kind: 'ftp', url } }],
            completedAt: '2026-11-21T08:01:00Z',
          },
        },
      ],
      scope,
      (raw) => raw,
    );
    expect(prepared.map((p) => p.ok)).toEqual([true, true, false]);
    expect(prepared[0]).toMatchObject({ stream: 'recording-RE3', event: { type: 'RecordingCompleted' } });
    expect(prepared[1]).toMatchObject({ stream: 'recording-RE3', event: { type: 'RecordingFailed' } });
    expect(prepared[2]).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });
});

describe('retentionExpiresAt', () => {
  it('is startedAt plus the days, null without a usable retention, never throws', () => {
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
        fc.oneof(fc.double(), fc.constant(null), fc.constant(undefined), fc.nat(100_000)),
        (start, days) => {
          const result = retentionExpiresAt(start.toISOString(), days);
          if (typeof days !== 'number' || !Number.isFinite(days) || days < 0) expect(result).toBeNull();
          else if (result !== null) {
            expect(Date.parse(result) - start.getTime()).toBeCloseTo(days * 86_400_000, -3);
          }
        },
      ),
    );
    expect(retentionExpiresAt('not a date', 3)).toBeNull();
    expect(retentionExpiresAt('2026-01-01T00:00:00Z', 0)).toBe('2026-01-01T00:00:00.000Z');
  });
});
