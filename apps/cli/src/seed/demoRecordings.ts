import { createHash } from 'node:crypto';
import {
  DEMO_EVENT_MARK,
  type EventDataInput,
  type EventType,
  recordingStream,
  sessionStream,
  toAppend,
} from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import { deriveEventId } from '@parley/ingest';
import { type MediaStorage, recordingMediaKey } from '@parley/media';
import type { SessionRecordingStatus, UnavailableReason } from '@parley/recordings';
import { demoCallAudio } from './demoAudio.js';
import { createRandom } from './random.js';

/** One demo session that shows a state of the recordings API (spec 000 §2.1, §3). */
export interface RecordingShowcase {
  sessionId: string;
  /** What `data.status` says for it. */
  status: SessionRecordingStatus;
  /** The UnavailableReasons its response carries (top-level, recording or file level). */
  reasons: UnavailableReason[];
  shows: string;
  /** When the call started (ms since the epoch); its conversation (demoCallConversation) follows. */
  startedAt: number;
}

type Channel = 'caller' | 'agent' | 'mixed';
const CHANNELS: readonly Channel[] = ['caller', 'agent', 'mixed'];
const CALL_SECONDS = 8;
const MINUTE = 60_000;

interface PlannedEvent {
  stream: string;
  type: EventType;
  data: Record<string, unknown>;
}

export interface DemoRecordingPlan {
  showcases: RecordingShowcase[];
  /** In append order per stream. */
  events: PlannedEvent[];
  /** Media to write: the WAV of one side of a demo call (made when written: audio takes a while). */
  media: DemoMedia[];
}

export interface DemoMedia {
  key: string;
  channel: Channel;
  /** Seed of the call's audio (demoCallAudio). */
  audioSeed: number;
}

/** The WAV bodies of the plan's media, each call's audio made once. */
export function mediaBodies(media: readonly DemoMedia[]): Buffer[] {
  const calls = new Map<number, ReturnType<typeof demoCallAudio>>();
  return media.map((m) => {
    let audio = calls.get(m.audioSeed);
    if (audio === undefined) {
      audio = demoCallAudio(m.audioSeed, CALL_SECONDS);
      calls.set(m.audioSeed, audio);
    }
    return audio[m.channel];
  });
}

/** Bytes of one side of a demo call (8 kHz 16-bit mono WAV). */
const WAV_BYTES = 44 + CALL_SECONDS * 8_000 * 2;

/**
 * Demo sessions with call recordings covering every session status and every UnavailableReason,
 * as the log would hold them after real calls: SessionStarted/SessionEnded in the session stream,
 * the recording events in `recording-<id>`, and real WAV audio (caller, agent and mixed sides of a
 * speech-like call) for every file that is stored. Pure: the same seed gives the same plan.
 */
export function demoRecordingPlan(a: { projectId: string; seed: number; now: number }): DemoRecordingPlan {
  // The project is part of the seed: the same seed in two projects must not share session ids.
  const random = createRandom(
    a.seed ^ Number.parseInt(createHash('sha256').update(a.projectId).digest('hex').slice(0, 8), 16),
  );
  const plan: DemoRecordingPlan = { showcases: [], events: [], media: [] };
  let index = 0;

  const session = (
    shows: string,
    status: SessionRecordingStatus,
    reasons: UnavailableReason[],
    options: { ended?: boolean; recordingEnabled?: boolean } = {},
  ) => {
    const sessionId = `demo-rec-${random.hex(20)}`;
    // A call still going began minutes ago (the lifecycle sweep abandons a session left open longer
    // than SESSION_ABANDON_AFTER_SECONDS); the others ended at intervals over the last hours, but the
    // first (every file stored) is the latest call of all, so that a list newest first opens on it.
    const start =
      options.ended === false
        ? a.now - 3 * MINUTE
        : index === 0
          ? a.now - 2 * MINUTE
          : a.now - (index + 1) * 47 * MINUTE;
    index += 1;
    const at = (minutes: number) => new Date(start + minutes * MINUTE).toISOString();
    const scope = { sessionId, projectId: a.projectId };
    plan.showcases.push({ sessionId, status, reasons, shows, startedAt: start });
    plan.events.push({
      stream: sessionStream(sessionId),
      type: 'SessionStarted',
      data: {
        ...scope,
        agentName: 'support-assistant',
        channel: 'voice_pipeline',
        environment: 'production',
        callerNumberKey: `+4420718${String(38_700 + index).padStart(5, '0')}`,
        traceDimensions: { region: 'eu-west', plan: 'pro' },
        ...(options.recordingEnabled === false && { recordingEnabled: false }),
        isTest: false,
        startedAt: at(0),
      },
    });
    const ended = options.ended ?? true;
    if (ended) {
      plan.events.push({
        stream: sessionStream(sessionId),
        type: 'SessionEnded',
        data: {
          ...scope,
          status: 'completed',
          containmentType: 'contained_resolved',
          endedAt: at(CALL_SECONDS / 60 + 1),
        },
      });
    }
    return { sessionId, at, scope, ended };
  };

  type Session = ReturnType<typeof session>;

  /** A recording of the session: started, optionally completed with files in the given states. */
  const recording = (
    s: Session,
    files: Array<{
      channel: Channel;
      state: 'pending' | 'stored' | 'unsigned' | 'missing' | 'auth_failed' | 'storage_write_failed';
    }>,
    options: { retentionDays?: number; completed?: boolean } = {},
  ) => {
    const recordingId = `rec-${random.hex(24)}`;
    const callId = `CA${random.hex(32)}`;
    const stream = recordingStream(recordingId);
    const scope = { ...s.scope, recordingId };
    const retention = options.retentionDays ?? 90;
    plan.events.push({
      stream,
      type: 'RecordingStarted',
      data: {
        ...scope,
        callId,
        startedAt: s.at(0.1),
        retentionExpiresAt: new Date(Date.parse(s.at(0.1)) + retention * 86_400_000).toISOString(),
      },
    });
    if (options.completed === false) return { recordingId, stream, scope, callId };
    const audioSeed = random.int(0, 0xffff_ffff);
    plan.events.push({
      stream,
      type: 'RecordingCompleted',
      data: {
        ...scope,
        callId,
        durationSeconds: CALL_SECONDS,
        files: files.map((file, objectIndex) => ({
          objectIndex,
          fileName: `${callId}-${file.channel}.wav`,
          channel: file.channel,
          recordingType: 'audio',
          contentType: 'audio/wav',
          recordingStartTime: s.at(0.1),
          recordingEndTime: s.at(0.1 + CALL_SECONDS / 60),
          source: {
            kind: 'recording_server',
            url: `https://recordings.example.com/2010-04-01/Accounts/ACdemo/Recordings/RE${random.hex(32)}`,
          },
        })),
        completedAt: s.at(CALL_SECONDS / 60 + 0.2),
      },
    });
    files.forEach((file, objectIndex) => {
      const key = recordingMediaKey({ projectId: a.projectId, recordingId, objectIndex, extension: 'wav' });
      const stored = (storageKey: string, bytes: number) =>
        plan.events.push({
          stream,
          type: 'RecordingFileStored',
          data: {
            ...scope,
            callId,
            objectIndex,
            fileName: `${callId}-${file.channel}.wav`,
            channel: file.channel,
            recordingType: 'audio',
            contentType: 'audio/wav',
            bytes,
            storageKey,
            durationSeconds: CALL_SECONDS,
            storedAt: s.at(CALL_SECONDS / 60 + 0.5),
          },
        });
      switch (file.state) {
        case 'pending':
          return;
        case 'stored': {
          plan.media.push({ key, channel: file.channel, audioSeed });
          stored(key, WAV_BYTES);
          return;
        }
        case 'missing':
          // Stored, then lost from storage: the API finds the object gone and records it.
          stored(key, WAV_BYTES);
          return;
        case 'unsigned':
          // A key the media storage refuses (left by another storage layout): every attempt to
          // issue its URL fails. In production url_signing_failed is transient (storage unreachable).
          stored(`${key}/..`, WAV_BYTES);
          return;
        case 'auth_failed':
        case 'storage_write_failed':
          plan.events.push({
            stream,
            type: 'RecordingFailed',
            data: {
              ...scope,
              callId,
              objectIndex,
              reason: file.state,
              detail: 'demo',
              failedAt: s.at(CALL_SECONDS / 60 + 0.6),
            },
          });
          return;
      }
    });
    return { recordingId, stream, scope, callId };
  };

  const all = (state: 'stored' | 'pending') => CHANNELS.map((channel) => ({ channel, state }));

  {
    const s = session('one call, caller/agent/mixed stored', 'success', []);
    recording(s, all('stored'));
  }
  {
    const s = session('a transfer: two recordings, the second under legal hold', 'success', []);
    recording(s, [{ channel: 'mixed', state: 'stored' }], { retentionDays: 30 });
    const held = recording(s, all('stored'), { retentionDays: 30 });
    plan.events.push({
      stream: held.stream,
      type: 'RecordingLegalHoldPlaced',
      data: {
        ...held.scope,
        holdId: `hold-${random.hex(12)}`,
        principal: { kind: 'user', id: 'legal-team' },
        reason: 'case 2026-114',
        placedAt: s.at(30),
      },
    });
  }
  {
    const s = session('caller side stored; fetching the others failed', 'partial', [
      'auth_failed',
      'storage_write_failed',
    ]);
    recording(s, [
      { channel: 'caller', state: 'stored' },
      { channel: 'agent', state: 'auth_failed' },
      { channel: 'mixed', state: 'storage_write_failed' },
    ]);
  }
  {
    const s = session('one URL cannot be issued', 'partial', ['url_signing_failed']);
    recording(s, [
      { channel: 'mixed', state: 'stored' },
      { channel: 'caller', state: 'unsigned' },
    ]);
  }
  {
    const s = session('call ended, media still being fetched', 'media_in_progress', ['media_in_progress']);
    recording(s, all('pending'));
  }
  {
    const s = session('call still going, recording files listed', 'call_in_progress', ['call_in_progress'], {
      ended: false,
    });
    recording(s, all('pending'));
  }
  session('call still going, no recording yet', 'call_in_progress', ['call_in_progress'], { ended: false });
  session('recording switched off for the session', 'media_unavailable', ['recording_disabled'], {
    recordingEnabled: false,
  });
  {
    const s = session('the recording server had no media', 'media_unavailable', ['media_not_available']);
    const r = recording(s, [], { completed: false });
    plan.events.push({
      stream: r.stream,
      type: 'RecordingFailed',
      data: {
        ...r.scope,
        callId: r.callId,
        reason: 'media_not_available',
        detail: 'absent',
        failedAt: s.at(1),
      },
    });
  }
  {
    const s = session('stored, then the object was lost', 'media_unavailable', ['media_object_missing']);
    recording(s, [{ channel: 'mixed', state: 'missing' }]);
  }
  for (const [cause, shows] of [
    ['retention_expired', 'retention period passed, media deleted'],
    ['deleted', 'recording deleted, media deleted'],
  ] as const) {
    const s = session(shows, 'media_unavailable', [cause]);
    // Their media was deleted: the files are logged as stored, no object is written.
    const r = recording(s, all('pending'));
    for (const [objectIndex, channel] of CHANNELS.entries()) {
      plan.events.push({
        stream: r.stream,
        type: 'RecordingFileStored',
        data: {
          ...r.scope,
          callId: r.callId,
          objectIndex,
          channel,
          contentType: 'audio/wav',
          bytes: WAV_BYTES,
          storageKey: recordingMediaKey({
            projectId: a.projectId,
            recordingId: r.recordingId,
            objectIndex,
            extension: 'wav',
          }),
          storedAt: s.at(1),
        },
      });
    }
    plan.events.push(
      cause === 'deleted'
        ? {
            stream: r.stream,
            type: 'RecordingDeleted',
            data: {
              ...r.scope,
              principal: { kind: 'user', id: 'privacy-team' },
              reason: 'erasure request',
              deletedAt: s.at(20),
            },
          }
        : { stream: r.stream, type: 'RecordingRetentionExpired', data: { ...r.scope, expiredAt: s.at(20) } },
    );
    plan.events.push({
      stream: r.stream,
      type: 'RecordingMediaDeleted',
      data: { ...r.scope, objectIndexes: [0, 1, 2], cause, deletedAt: s.at(21) },
    });
  }
  return plan;
}

/**
 * Writes the plan's media, then appends its events (one append per stream, event ids derived from
 * the project and the event's place, so running the same seed again appends nothing new).
 */
export async function seedDemoRecordings(
  deps: { store: EventStore; storage: MediaStorage },
  scope: { tenantId: string; projectId: string },
  plan: DemoRecordingPlan,
): Promise<{ events: number; files: number; bytes: number }> {
  const bodies = mediaBodies(plan.media);
  for (const [i, { key }] of plan.media.entries()) {
    await deps.storage.put(key, bodies[i]!, { contentType: 'audio/wav' });
  }
  const byStream = new Map<string, PlannedEvent[]>();
  for (const event of plan.events) byStream.set(event.stream, [...(byStream.get(event.stream) ?? []), event]);
  for (const [stream, events] of byStream) {
    await deps.store.append(
      stream,
      events.map((event, n) =>
        toAppend(
          event.type,
          event.data as EventDataInput<typeof event.type>,
          // Marked: the worker fetches nothing for them (its media is written above, and the files
          // shown as still being fetched must stay so).
          { tenantId: scope.tenantId, [DEMO_EVENT_MARK]: true },
          deriveEventId(scope.projectId, `seed-recordings/${stream}/${n}`),
        ),
      ),
    );
  }
  return {
    events: plan.events.length,
    files: plan.media.length,
    bytes: bodies.reduce((n, body) => n + body.length, 0),
  };
}
