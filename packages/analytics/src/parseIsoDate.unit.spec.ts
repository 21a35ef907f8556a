import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIsoDate } from './parseIsoDate.js';

describe('parseIsoDate', () => {
  it.each([
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2026-03-01T10:20', '2026-03-01T10:20:00.000Z'],
    ['2026-03-01T10:20:30', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20:30.123456Z', '2026-03-01T10:20:30.123Z'],
    ['2026-03-01T10:20:30+02:00', '2026-03-01T08:20:30.000Z'],
    ['2026-03-01T10:20:30-0130', '2026-03-01T11:50:30.000Z'],
    ['2026-03-01T10:20:30 02:00', '2026-03-01T08:20:30.000Z'],
    ['2026-03-01 10:20:30Z', '2026-03-01T10:20:30.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0099-01-01', '0099-01-01T00:00:00.000Z'],
  ])('%s → %s', (value, iso) => {
    expect(parseIsoDate(value)?.toISOString()).toBe(iso);
  });

  it.each([
    '',
    'now',
    '2026-3-1',
    '2026-02-29',
    '2026-13-01',
    '2026-03-01T24:00:00Z',
    '2026-03-01T10:60Z',
    '2026-03-01T10:20:30+24:00',
    '1709251200',
  ])('refuses %j', (value) => {
    expect(parseIsoDate(value)).toBeUndefined();
  });

  it('round-trips every toISOString and never throws', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (d) => {
          expect(parseIsoDate(d.toISOString())?.getTime()).toBe(d.getTime());
        },
      ),
    );
    fc.assert(fc.property(fc.string(), (s) => void parseIsoDate(s)));
  });
});
