import { toAppend } from '@parley/events';
import { SESSION_RECORDING_STATUSES, UNAVAILABLE_REASONS } from '@parley/recordings';
import { describe, expect, it } from 'vitest';
import { demoRecordingPlan, mediaBodies } from './demoRecordings.js';

const now = Date.parse('2026-11-21T08:00:00Z');

describe('demoRecordingPlan', () => {
  it('is the same for the same seed, and valid events only', () => {
    const plan = demoRecordingPlan({ projectId: 'proj_demo', seed: 7, now });
    expect(demoRecordingPlan({ projectId: 'proj_demo', seed: 7, now })).toEqual(plan);
    expect(demoRecordingPlan({ projectId: 'proj_demo', seed: 8, now }).showcases[0]?.sessionId).not.toBe(
      plan.showcases[0]?.sessionId,
    );
    for (const event of plan.events) expect(() => toAppend(event.type, event.data as never)).not.toThrow();
  });

  it('plans every status and every reason, and WAV media for every stored file', () => {
    const plan = demoRecordingPlan({ projectId: 'proj_demo', seed: 1, now });
    expect([...new Set(plan.showcases.map((s) => s.status))].sort()).toEqual(
      [...SESSION_RECORDING_STATUSES].sort(),
    );
    expect([...new Set(plan.showcases.flatMap((s) => s.reasons))].sort()).toEqual(
      [...UNAVAILABLE_REASONS].sort(),
    );
    const stored = plan.events.filter((e) => e.type === 'RecordingFileStored').map((e) => e.data.storageKey);
    const bodies = mediaBodies(plan.media);
    plan.media.forEach(({ key }, i) => {
      expect(stored).toContain(key);
      expect(bodies[i]!.toString('ascii', 0, 4)).toBe('RIFF');
    });
    // One call, a transfer (1 + 3), and one stored file in each partial session.
    expect(plan.media.length).toBe(9);
    // The bytes the log states are the bytes written.
    const bytes = new Map(
      plan.events
        .filter((e) => e.type === 'RecordingFileStored')
        .map((e) => [e.data.storageKey, e.data.bytes]),
    );
    for (const [i, { key }] of plan.media.entries()) expect(bytes.get(key)).toBe(bodies[i]!.length);
  });

  it('starts the calls still going minutes ago, so that the lifecycle sweep leaves them open', () => {
    const plan = demoRecordingPlan({ projectId: 'proj_demo', seed: 1, now });
    const going = plan.showcases.filter((s) => s.status === 'call_in_progress');
    expect(going).toHaveLength(2);
    // SESSION_ABANDON_AFTER_SECONDS defaults to 1800, SESSION_IDLE_AFTER_SECONDS to 300.
    for (const call of going) expect(now - call.startedAt).toBeLessThan(300_000);
    // The call with every file stored is the latest: a list newest first opens on it.
    const latest = [...plan.showcases].sort((x, y) => y.startedAt - x.startedAt)[0];
    expect(latest?.status).toBe('success');
    expect(latest?.shows).toBe('one call, caller/agent/mixed stored');
  });
});
