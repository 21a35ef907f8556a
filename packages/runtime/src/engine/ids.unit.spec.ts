import { describe, expect, it } from 'vitest';
import { newMessageId, newSessionId, newSpanId, newTraceId } from './ids.js';

describe('ids', () => {
  it('have their shapes and never repeat, across refills of the random pool', () => {
    const ids = new Set<string>();
    // 20,000 ids take far more than one 4 KiB pool of random bytes.
    for (let i = 0; i < 5_000; i++) {
      const session = newSessionId();
      const message = newMessageId();
      const trace = newTraceId();
      const span = newSpanId();
      expect(session).toMatch(/^sess_[0-9A-Za-z]{20}$/);
      expect(message).toMatch(/^msg_[0-9A-Za-z]{20}$/);
      expect(trace).toMatch(/^[0-9a-f]{32}$/);
      expect(span).toMatch(/^[0-9a-f]{16}$/);
      for (const id of [session, message, trace, span]) ids.add(id);
    }
    expect(ids.size).toBe(20_000);
  });
});
