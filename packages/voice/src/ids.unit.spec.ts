import { describe, expect, it } from 'vitest';
import { derivedUuid } from './ids.js';

describe('voice derivedUuid', () => {
  // Pinned before derivedUuid moved to @parley/platform: ids already in logs must not change.
  it('keeps the parley-voice namespace', () => {
    expect(derivedUuid('call-event', 'CA123')).toBe('f30e948e-2deb-89fc-b87d-97c4eca8f414');
  });
});
