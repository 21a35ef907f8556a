import { ingestDataSchemas } from '@parley/ingest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  callbackFiles,
  RECORDING_CALLBACK_STATUSES,
  recordingCallbackItems,
  recordingStatusCallbackSchema,
} from './recordingCallback.js';

const RECEIVED = new Date('2026-11-21T10:00:00.000Z');
// A real Twilio recording-status callback body (field names and value shapes as Twilio sends them).
const completedTwoChannels = {
  AccountSid: 'AC0123456789abcdef0123456789abcdef',
  CallSid: 'CA0123456789abcdef0123456789abcdef',
  RecordingSid: 'RE0123456789abcdef0123456789abcdef',
  RecordingUrl:
    'https://api.twilio.com/2010-04-01/Accounts/AC0123456789abcdef0123456789abcdef/Recordings/RE0123456789abcdef0123456789abcdef',
  RecordingStatus: 'completed',
  RecordingDuration: '42',
  RecordingChannels: '2',
  RecordingStartTime: 'Sat, 21 Nov 2026 09:59:00 +0000',
  RecordingSource: 'StartCallRecordingAPI',
  ErrorCode: '0',
};

const items = (body: Record<string, string>) =>
  recordingCallbackItems({
    callback: recordingStatusCallbackSchema.parse(body),
    sessionId: 'ses_1',
    receivedAt: RECEIVED,
  });

describe('recordingCallbackItems', () => {
  it('turns a two-channel completed recording into started + completed with caller, agent and mixed files', () => {
    const [started, completed] = items(completedTwoChannels);
    expect(started).toEqual({
      id: 'telephony:RE0123456789abcdef0123456789abcdef:started',
      type: 'recording.started',
      data: {
        recordingId: 'RE0123456789abcdef0123456789abcdef',
        sessionId: 'ses_1',
        callId: 'CA0123456789abcdef0123456789abcdef',
        startedAt: '2026-11-21T09:59:00.000Z',
      },
    });
    expect(completed?.type).toBe('recording.completed');
    expect(completed?.data).toMatchObject({ durationSeconds: 42, completedAt: RECEIVED.toISOString() });
    const files = completed?.data.files as Array<Record<string, unknown>>;
    expect(files.map((f) => [f.objectIndex, f.channel, (f.source as { url: string }).url])).toEqual([
      [0, 'caller', `${completedTwoChannels.RecordingUrl}.wav?RequestedChannels=1`],
      [1, 'agent', `${completedTwoChannels.RecordingUrl}.wav?RequestedChannels=2`],
      [2, 'mixed', `${completedTwoChannels.RecordingUrl}.wav`],
    ]);
    expect(files[0]).toMatchObject({
      fileName: 'RE0123456789abcdef0123456789abcdef-caller.wav',
      contentType: 'audio/wav',
      recordingStartTime: '2026-11-21T09:59:00.000Z',
      recordingEndTime: '2026-11-21T09:59:42.000Z',
      source: { kind: 'recording_server' },
    });
  });

  it('gives a one-channel recording a single mixed file', () => {
    const [, completed] = items({ ...completedTwoChannels, RecordingChannels: '1' });
    const files = completed?.data.files as Array<Record<string, unknown>>;
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ objectIndex: 0, channel: 'mixed' });
  });

  it('maps in-progress to started only, absent and failed to media_not_available', () => {
    expect(items({ ...completedTwoChannels, RecordingStatus: 'in-progress' }).map((i) => i.type)).toEqual([
      'recording.started',
    ]);
    for (const status of ['absent', 'failed']) {
      const [, failed] = items({ ...completedTwoChannels, RecordingStatus: status, ErrorCode: '13617' });
      expect(failed).toMatchObject({
        id: `telephony:${completedTwoChannels.RecordingSid}:failed`,
        type: 'recording.failed',
        data: { reason: 'media_not_available', detail: `${status} (error 13617)` },
      });
      expect(failed?.data).not.toHaveProperty('objectIndex');
    }
  });

  it('is deterministic: the same callback gives the same items (ids included)', () => {
    expect(items(completedTwoChannels)).toEqual(items(completedTwoChannels));
  });

  it('always produces items the ingest schemas accept, for any valid callback', () => {
    const sid = fc.stringMatching(/^[A-Za-z0-9]{1,40}$/);
    fc.assert(
      fc.property(
        fc.record(
          {
            AccountSid: sid,
            CallSid: sid,
            RecordingSid: sid,
            RecordingStatus: fc.constantFrom(...RECORDING_CALLBACK_STATUSES),
            RecordingUrl: fc.webUrl({ validSchemes: ['https'] }),
            RecordingDuration: fc.nat(100_000).map(String),
            RecordingChannels: fc.constantFrom('1', '2'),
            RecordingStartTime: fc.oneof(
              fc
                .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
                .map((d) => d.toUTCString()),
              fc.string(),
            ),
            ErrorCode: fc.stringMatching(/^\d{1,5}$/),
          },
          { requiredKeys: ['AccountSid', 'CallSid', 'RecordingSid', 'RecordingStatus'] },
        ),
        (body) => {
          const parsed = recordingStatusCallbackSchema.safeParse(body);
          fc.pre(parsed.success);
          const produced = recordingCallbackItems({
            callback: parsed.data!,
            sessionId: 'ses_x',
            receivedAt: RECEIVED,
          });
          expect(produced[0]?.type).toBe('recording.started');
          for (const item of produced) {
            expect(ingestDataSchemas[item.type].safeParse(item.data).success).toBe(true);
          }
        },
      ),
    );
  });
});

describe('recordingStatusCallbackSchema', () => {
  it('never throws on arbitrary form fields', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.string()), (body) => {
        expect(() => recordingStatusCallbackSchema.safeParse(body)).not.toThrow();
      }),
    );
  });

  it('refuses unknown statuses and non-http recording URLs', () => {
    expect(
      recordingStatusCallbackSchema.safeParse({ ...completedTwoChannels, RecordingStatus: 'paused' }).success,
    ).toBe(false);
    expect(
      recordingStatusCallbackSchema.safeParse({ ...completedTwoChannels, RecordingUrl: 'file:///etc/passwd' })
        .success,
    ).toBe(false);
  });
});

describe('callbackFiles', () => {
  it('strips an extension the provider already put on the URL', () => {
    const files = callbackFiles({
      recordingSid: 'RE1',
      recordingUrl: 'https://r.example/Recordings/RE1.wav',
      channels: 1,
      start: null,
      durationSeconds: undefined,
    });
    expect(files[0]).toMatchObject({ source: { url: 'https://r.example/Recordings/RE1.wav' } });
    expect(files[0]).not.toHaveProperty('recordingStartTime');
  });
});
