import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineProjection } from './defineProjection.js';
import { ProjectionHandlerError } from './errors.js';
import { keyString, normalizeValue, toJson } from './fold.js';
import { chunks, recorded, tallySpec } from './spec/events.js';
import { tallyProjection } from './spec/tallyProjection.js';
import { emptyState, memoryRows, projectInMemory } from './testing/index.js';

const tallies = tallyProjection('tallies', 'tallies');

describe('fold (pure)', () => {
  it('folds upserts, two-key events and deletes', () => {
    const events = recorded([
      { type: 'Added', stream: 's-a', data: { amount: 5 } },
      { type: 'Added', stream: 's-b', data: { amount: 2 } },
      { type: 'Moved', stream: 's-a', data: { amount: 3, to: 's-b' } },
      { type: 'Reset', stream: 's-b' },
      { type: 'Noise', stream: 's-a', data: { amount: 100 } },
    ]);
    const state = projectInMemory(tallies, events);
    expect(memoryRows(state, 'tallies')).toEqual([{ stream: 's-a', count: 2, total: 2, last_type: 'Moved' }]);
    expect(state.checkpoint).toEqual(events[4]?.position);
  });

  it('rebuild equals incremental: any split into batches gives the same rows', () => {
    fc.assert(
      fc.property(
        fc.array(tallySpec, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (specs, cuts) => {
          const events = recorded(specs);
          const whole = projectInMemory(tallies, events);
          let state = emptyState(tallies);
          for (const batch of chunks(events, cuts)) state = projectInMemory(tallies, batch, state);
          expect(memoryRows(state, 'tallies')).toEqual(memoryRows(whole, 'tallies'));
          expect(state.checkpoint).toEqual(whole.checkpoint);
        },
      ),
    );
  });

  it('a replayed event changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(tallySpec, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
        (specs, picks) => {
          const events = recorded(specs);
          const once = projectInMemory(tallies, events);
          const replay = picks.map((p) => events[p % events.length]!);
          const again = projectInMemory(tallies, replay, once);
          expect(memoryRows(again, 'tallies')).toEqual(memoryRows(once, 'tallies'));
          expect(again.checkpoint).toEqual(once.checkpoint);
        },
      ),
    );
  });

  it('events of types the projection does not read change nothing', () => {
    fc.assert(
      fc.property(fc.array(tallySpec, { maxLength: 60 }), (specs) => {
        const all = projectInMemory(tallies, recorded(specs));
        const known = projectInMemory(tallies, recorded(specs.filter((s) => s.type !== 'Noise')));
        expect(memoryRows(all, 'tallies')).toEqual(memoryRows(known, 'tallies'));
      }),
    );
  });

  it('names the event when a handler throws', () => {
    const events = recorded([
      { type: 'Added', stream: 's-a', data: { amount: 1 } },
      { type: 'Added', stream: 's-a', data: { amount: 1, poison: 'tallies' } },
    ]);
    const thrown = (() => {
      try {
        projectInMemory(tallies, events);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(ProjectionHandlerError);
    expect(thrown).toMatchObject({ eventId: events[1]?.eventId, eventType: 'Added', phase: 'evolve' });
  });

  it('refuses a row that leaves a NOT NULL column empty, naming the last event', () => {
    const broken = defineProjection({
      name: 'broken',
      version: 1,
      tables: { t: { columns: { id: 'text', label: 'text' }, primaryKey: ['id'] } },
      handlers: { t: { keys: (e) => [{ id: e.stream }], evolve: (_row, _e, key) => ({ ...key }) as never } },
    });
    const events = recorded([{ type: 'X', stream: 's' }]);
    expect(() => projectInMemory(broken, events)).toThrow(/column label is undefined/);
  });

  it('folds a key named twice by one event once', () => {
    const events = recorded([{ type: 'Moved', stream: 's-a', data: { amount: 4, to: 's-a' } }]);
    expect(memoryRows(projectInMemory(tallies, events), 'tallies')).toEqual([
      { stream: 's-a', count: 1, total: -4, last_type: 'Moved' },
    ]);
  });
});

describe('keyString', () => {
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('"', '\\', '\u0000', '\u001f', '\ud800', '\udfff', '😀', 'a"b', 'é'),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.date({ noInvalidDate: false }),
    fc.bigInt(),
    fc.constantFrom(null, undefined, -0, Number.NaN, Infinity),
    fc.jsonValue(),
  );
  const table = (columns: string[]) =>
    ({ primaryKey: columns }) as unknown as Parameters<typeof keyString>[0];

  it('is toJson of the normalised key values', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), (values) => {
        const columns = values.map((_, i) => `c${i}`);
        const key = Object.fromEntries(values.map((v, i) => [`c${i}`, v]));
        let reference: string | Error;
        try {
          reference = toJson(columns.map((c) => normalizeValue(key[c])));
        } catch (err) {
          reference = err as Error;
        }
        if (reference instanceof Error)
          expect(() => keyString(table(columns), key)).toThrow(reference.constructor as never);
        else expect(keyString(table(columns), key)).toBe(reference);
      }),
      { numRuns: 2_000 },
    );
  });
});
