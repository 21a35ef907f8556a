import { describe, expect, it } from 'vitest';
import { derivedUuid } from './ids.js';

describe('derivedUuid', () => {
  // Pinned from the per-package implementations this one replaced: ids already in logs must not change.
  it('gives the ids the voice and channels packages derived before', () => {
    expect(derivedUuid('parley-voice', 'call-event', 'CA123')).toBe('f30e948e-2deb-89fc-b87d-97c4eca8f414');
    expect(derivedUuid('parley-channels', 'inbound-job', JSON.stringify(['conn-1', 'msg-1']))).toBe(
      '8241d9fd-5733-8475-9be7-ee2dcbd24113',
    );
  });
});
