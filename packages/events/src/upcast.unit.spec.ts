import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEvent, upcast } from './catalog.js';
import { createCatalog } from './createCatalog.js';
import { defineEvent, defineUpcaster } from './defineEvent.js';
import { InvalidEventDataError, UnsupportedSchemaVersionError } from './errors.js';
import { llmCallRecordedSchema } from './schemas/llm.js';
import { llmCallRecordedV1Arbitrary } from './testing/arbitraries.js';
import {
  eventExamples,
  llmCallRecordedV1Example,
  llmCallRecordedV1ExampleAsV2,
  llmCallRecordedV1ToAppend,
} from './testing/fixtures.js';
import { recordedFrom } from './testing/recordedFrom.js';

const storedV1 = (data: Record<string, unknown>) =>
  recordedFrom({ ...llmCallRecordedV1ToAppend(), data }, { stream: 'session-s1', revision: 4n });

describe('LlmCallRecorded v1 -> v2', () => {
  it('turns the stored v1 example into its v2 form, keeping the envelope', () => {
    const stored = recordedFrom(llmCallRecordedV1ToAppend(), { stream: 'session-s1', revision: 4n });
    const current = upcast(stored);
    expect(current).toEqual({ ...stored, schemaVersion: 2, data: llmCallRecordedV1ExampleAsV2 });
    expect(stored.schemaVersion).toBe(1);
    expect(stored.data).toEqual(llmCallRecordedV1Example);
    expect(parseEvent(stored)).toMatchObject({
      known: true,
      type: 'LlmCallRecorded',
      schemaVersion: 2,
      data: llmCallRecordedV1ExampleAsV2,
    });
  });

  it('gives valid v2 data for any v1 data, mapped as documented, and is idempotent', () => {
    fc.assert(
      fc.property(llmCallRecordedV1Arbitrary, (v1) => {
        const current = upcast(storedV1(v1));
        expect(current.schemaVersion).toBe(2);
        const v2 = llmCallRecordedSchema.parse(current.data);
        expect(v2.usage).toEqual({
          inputTokens: v1.promptTokens,
          cachedTokens: 0,
          completionTokens: v1.completionTokens,
          reasoningTokens: 0,
          outputTokens: v1.completionTokens,
          totalTokens: v1.totalTokens,
        });
        expect(v2.latencyMs).toBe(Math.round(v1.latency * 1000));
        expect(v2.timeToFirstTokenMs).toBe(
          v1.timeToFirstToken === undefined ? v2.latencyMs : Math.round(v1.timeToFirstToken * 1000),
        );
        const { promptTokens, completionTokens, totalTokens, latency, timeToFirstToken, ...shared } = v1;
        expect(v2).toMatchObject(shared);
        expect(upcast(current)).toEqual(current);
      }),
      { numRuns: 300 },
    );
  });

  it('reports a broken v1 event as v1, with its event id', () => {
    const stored = storedV1({ ...llmCallRecordedV1Example, promptTokens: -3 });
    const error = catchError(() => upcast(stored));
    expect(error).toBeInstanceOf(InvalidEventDataError);
    expect(error).toMatchObject({ eventType: 'LlmCallRecorded', schemaVersion: 1, eventId: stored.eventId });
  });

  it('refuses a version newer than this build, and versions that do not exist', () => {
    const current = recordedFrom({
      eventId: crypto.randomUUID(),
      type: 'LlmCallRecorded',
      schemaVersion: 2,
      data: {},
    });
    for (const schemaVersion of [3, 0, -1, 1.5]) {
      const error = catchError(() => upcast({ ...current, schemaVersion }));
      expect(error).toBeInstanceOf(UnsupportedSchemaVersionError);
      expect(error).toMatchObject({ code: 'UNSUPPORTED_SCHEMA_VERSION', schemaVersion, currentVersion: 2 });
    }
    expect(() => parseEvent({ ...current, schemaVersion: 3 })).toThrow(
      /has schemaVersion 3, newer than this build's 2: readers must be deployed before the writers/,
    );
  });

  it('does not touch a current event', () => {
    const stored = recordedFrom({
      eventId: crypto.randomUUID(),
      type: 'LlmCallRecorded',
      schemaVersion: 2,
      data: eventExamples.LlmCallRecorded,
    });
    expect(upcast(stored)).toBe(stored);
  });
});

describe('the upcaster chain', () => {
  // A toy event renamed twice: v1 { name }, v2 { fullName }, v3 { displayName, source }.
  const v1 = z.object({ name: z.string() });
  const v2 = z.object({ fullName: z.string() });
  const v3 = z.object({ displayName: z.string(), source: z.string() });
  const steps: string[] = [];
  const renamed = defineEvent({
    type: 'ThingRenamed',
    schemaVersion: 3,
    schema: v3,
    upcasters: [
      defineUpcaster({
        from: v1,
        to: v2,
        up: ({ name }) => {
          steps.push('1->2');
          return { fullName: name };
        },
      }),
      defineUpcaster({
        from: v2,
        to: v3,
        up: ({ fullName }, { fromVersion, event }) => {
          steps.push(`${fromVersion}->3`);
          return { displayName: fullName, source: `v${event.schemaVersion}` };
        },
      }),
    ],
  });
  const catalog = createCatalog([renamed]);
  const stored = (schemaVersion: number, data: Record<string, unknown>) =>
    recordedFrom({ eventId: crypto.randomUUID(), type: 'ThingRenamed', schemaVersion, data });

  it('applies every step from the stored version, in order', () => {
    steps.length = 0;
    expect(catalog.upcast(stored(1, { name: 'Ada' }))).toMatchObject({
      schemaVersion: 3,
      data: { displayName: 'Ada', source: 'v1' },
    });
    expect(steps).toEqual(['1->2', '2->3']);

    steps.length = 0;
    expect(catalog.upcast(stored(2, { fullName: 'Grace' })).data).toEqual({
      displayName: 'Grace',
      source: 'v2',
    });
    expect(steps).toEqual(['2->3']);
  });

  it('checks each step output against the next version', () => {
    const broken = defineEvent({
      type: 'ThingRenamed',
      schemaVersion: 2,
      schema: v2,
      upcasters: [
        defineUpcaster({ from: v1, to: v2, up: ({ name }) => ({ fullName: name.length }) as never }),
      ],
    });
    expect(() => createCatalog([broken]).upcast(stored(1, { name: 'Ada' }))).toThrow(
      /^invalid ThingRenamed v2 data \(event [0-9a-f-]+\): fullName: /,
    );
  });

  it('needs one upcaster per older version, and a PascalCase type', () => {
    expect(() => defineEvent({ type: 'ThingRenamed', schemaVersion: 3, schema: v3, upcasters: [] })).toThrow(
      /needs 2 upcaster/,
    );
    expect(() => defineEvent({ type: 'ThingRenamed', schemaVersion: 0, schema: v3 })).toThrow(/integer >= 1/);
    expect(() => defineEvent({ type: 'thing_renamed', schemaVersion: 1, schema: v1 })).toThrow(/PascalCase/);
    expect(() => createCatalog([renamed, renamed])).toThrow(/defined twice/);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
