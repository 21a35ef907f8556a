import { DEMO_EVENT_MARK } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';
import { describe, expect, it } from 'vitest';
import { fetchJobsOf } from './fetchJobEnqueuer.js';

const completed = (metadata: Record<string, unknown>): RecordedEvent => ({
  eventId: '5f0c7f2e-3a52-4c47-9a57-0f2d6a4e9b11',
  type: 'RecordingCompleted',
  schemaVersion: 1,
  data: {
    projectId: 'proj_1',
    sessionId: 'ses_1',
    recordingId: 'rec_1',
    callId: 'CA1',
    files: [
      { objectIndex: 0, source: { kind: 'recording_server', url: 'https://api.twilio.com/RE1.wav' } },
      { objectIndex: 1, source: { kind: 'external', url: 'https://media.example.org/RE1.mp3' } },
    ],
    completedAt: '2026-11-21T08:00:00.000Z',
  },
  metadata,
  stream: 'recording-rec_1',
  revision: 1n,
  position: { commit: 10n, prepare: 10n },
  recordedAt: new Date('2026-11-21T08:00:00Z'),
});

describe('fetchJobsOf', () => {
  it('is one job per recording_server file', () => {
    expect(fetchJobsOf(completed({ tenantId: 't1' })).map((j) => [j.objectIndex, j.url])).toEqual([
      [0, 'https://api.twilio.com/RE1.wav'],
    ]);
  });

  it("is nothing for the demo seed's recordings, whose media is seeded or stays pending", () => {
    expect(fetchJobsOf(completed({ tenantId: 't1', [DEMO_EVENT_MARK]: true }))).toEqual([]);
  });
});
