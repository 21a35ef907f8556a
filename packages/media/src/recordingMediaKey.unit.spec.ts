import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { proxiedMediaPath } from './proxiedMediaPath.js';
import { recordingMediaKey } from './recordingMediaKey.js';
import { isValidMediaKey } from './storage/mediaKey.js';

const id = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,40}$/);

describe('recordingMediaKey', () => {
  it('names one file of one recording of one project', () => {
    expect(
      recordingMediaKey({ projectId: 'p_1', recordingId: 'rec_9', objectIndex: 0, extension: 'wav' }),
    ).toBe('recordings/p_1/rec_9/0.wav');
    expect(
      recordingMediaKey({ projectId: 'p_1', recordingId: 'rec_9', objectIndex: 2, extension: '.MP3' }),
    ).toBe('recordings/p_1/rec_9/2.mp3');
    expect(recordingMediaKey({ projectId: 'p_1', recordingId: 'rec_9', objectIndex: 1 })).toBe(
      'recordings/p_1/rec_9/1',
    );
  });

  it('is a valid media key, injective over its inputs', () => {
    fc.assert(
      fc.property(
        id,
        id,
        fc.nat(),
        fc.option(fc.constantFrom('wav', 'mp3', 'ogg'), { nil: undefined }),
        (p, r, i, e) => {
          const key = recordingMediaKey({ projectId: p, recordingId: r, objectIndex: i, extension: e });
          expect(isValidMediaKey(key)).toBe(true);
          const [, project, recording, file] = key.split('/');
          expect([project, recording, Number(file!.split('.')[0])]).toEqual([p, r, i]);
        },
      ),
    );
  });

  it('refuses ids that could escape or nest', () => {
    for (const bad of ['', '..', '.', 'a/b', 'a\\b', '../x', ' a', 'ä']) {
      expect(() => recordingMediaKey({ projectId: bad, recordingId: 'r', objectIndex: 0 })).toThrow(
        TypeError,
      );
      expect(() => recordingMediaKey({ projectId: 'p', recordingId: bad, objectIndex: 0 })).toThrow(
        TypeError,
      );
    }
    for (const index of [-1, 1.5, Number.NaN]) {
      expect(() => recordingMediaKey({ projectId: 'p', recordingId: 'r', objectIndex: index })).toThrow(
        TypeError,
      );
    }
    for (const extension of ['', '.', 'w/v', 'wav.x', 'verylongextension']) {
      expect(() =>
        recordingMediaKey({ projectId: 'p', recordingId: 'r', objectIndex: 0, extension }),
      ).toThrow(TypeError);
    }
  });
});

describe('isValidMediaKey', () => {
  it('accepts relative paths of safe segments only', () => {
    expect(isValidMediaKey('recordings/p/r/0.wav')).toBe(true);
    for (const bad of [
      '',
      '/a',
      'a/',
      'a//b',
      '../a',
      'a/../b',
      '.a',
      'a/.b',
      'a b',
      'a\\b',
      'ä',
      'x'.repeat(1025),
    ]) {
      expect(isValidMediaKey(bad)).toBe(false);
    }
  });
});

describe('proxiedMediaPath', () => {
  it('is exactly the media content route', () => {
    expect(
      proxiedMediaPath({
        projectId: 'p_1',
        recordingId: 'rec_9',
        token: 'abc_-DEF',
        objectIndex: 2,
        disposition: 'attachment',
      }),
    ).toBe('/api/projects/p_1/recordings/rec_9/media/content/abc_-DEF?objectIndex=2&disposition=attachment');
  });

  it('escapes ids that are not URL-safe', () => {
    expect(
      proxiedMediaPath({
        projectId: 'p/1',
        recordingId: 'r?x',
        token: 't',
        objectIndex: 0,
        disposition: 'inline',
      }),
    ).toBe('/api/projects/p%2F1/recordings/r%3Fx/media/content/t?objectIndex=0&disposition=inline');
  });
});
