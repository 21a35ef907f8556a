import {
  type AllStreamRecordedEvent,
  ANY,
  convertToCommandError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  NO_STREAM,
  STREAM_EXISTS,
  StreamNotFoundError,
} from '@eventstore/db-client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparePositions, type Position, WrongExpectedVersionError } from '../types.js';
import {
  eventTypesRegex,
  fromEsdbPosition,
  fromStoredMetadata,
  isEsdbWrongExpectedVersion,
  isSystemEvent,
  isWanted,
  positionOf,
  SCHEMA_VERSION_KEY,
  toActualRevision,
  toEsdbExpectedRevision,
  toEsdbPosition,
  toEventData,
  toRecordedEvent,
  toStoredMetadata,
  toWrongExpectedVersionError,
} from './mapping.js';

const position = fc.record({
  commit: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  prepare: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
});
const metadataObject = fc.dictionary(
  fc.string().filter((key) => key !== SCHEMA_VERSION_KEY),
  fc.jsonValue(),
);
/** What JSON on the wire does to a value (drops undefined, turns -0 into 0). */
const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value));

function esdbEvent(overrides: Partial<AllStreamRecordedEvent> = {}): AllStreamRecordedEvent {
  return {
    streamId: 'session-1',
    id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    revision: 4n,
    type: 'MessageReceived',
    data: { text: 'hi' },
    metadata: { tenantId: 't1', [SCHEMA_VERSION_KEY]: 2 },
    isJson: true,
    created: new Date('2024-05-01T10:00:00.000Z'),
    position: { commit: 1200n, prepare: 1100n },
    ...overrides,
  } as AllStreamRecordedEvent;
}

describe('toEsdbExpectedRevision', () => {
  it('maps the named states to the client constants, and an omitted one to ANY', () => {
    expect(toEsdbExpectedRevision(undefined)).toBe(ANY);
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    expect(toEsdbExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
  });

  it('passes an exact revision through', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (revision) => {
        expect(toEsdbExpectedRevision(revision)).toBe(revision);
      }),
    );
  });

  it('refuses a negative revision rather than letting the server read it as a special state', () => {
    expect(() => toEsdbExpectedRevision(-1n)).toThrow(RangeError);
  });
});

describe('positions', () => {
  it('round-trip between the port and the client as copies', () => {
    fc.assert(
      fc.property(position, (p) => {
        const esdb = toEsdbPosition(p);
        expect(esdb).not.toBe(p);
        expect(fromEsdbPosition(esdb)).toEqual(p);
      }),
    );
  });

  it('keep their order', () => {
    fc.assert(
      fc.property(position, position, (a, b) => {
        expect(
          comparePositions(fromEsdbPosition(toEsdbPosition(a)), fromEsdbPosition(toEsdbPosition(b))),
        ).toBe(comparePositions(a, b));
      }),
    );
  });

  it('fall back to the commit position for servers older than 22.6', () => {
    const old = esdbEvent({ position: undefined as unknown as Position });
    expect(positionOf(old, 900n)).toEqual({ commit: 900n, prepare: 900n });
    expect(() => positionOf(old)).toThrow(/no log position/);
    expect(positionOf(esdbEvent(), 900n)).toEqual({ commit: 1200n, prepare: 1100n });
  });
});

describe('schemaVersion in metadata', () => {
  it('round-trips any JSON metadata object and version through the wire', () => {
    fc.assert(
      fc.property(metadataObject, fc.integer({ min: 1, max: 1_000_000 }), (metadata, schemaVersion) => {
        const stored = viaJson(toStoredMetadata(metadata, schemaVersion));
        expect(stored[SCHEMA_VERSION_KEY]).toBe(schemaVersion);
        expect(fromStoredMetadata(stored)).toEqual({ metadata: viaJson(metadata), schemaVersion });
      }),
    );
  });

  it('defaults to version 1 when writing', () => {
    expect(toStoredMetadata(undefined)).toEqual({ [SCHEMA_VERSION_KEY]: 1 });
  });

  it('refuses a version that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => toStoredMetadata({}, bad)).toThrow(RangeError);
  });

  it('reads foreign or missing metadata as empty, version 1', () => {
    for (const stored of [undefined, null, 'text', [1, 2], new Uint8Array([1, 2])]) {
      expect(fromStoredMetadata(stored)).toEqual({ metadata: {}, schemaVersion: 1 });
    }
    expect(fromStoredMetadata({ a: 1, [SCHEMA_VERSION_KEY]: 'two' })).toEqual({
      metadata: { a: 1 },
      schemaVersion: 1,
    });
  });
});

describe('toEventData', () => {
  it('builds a JSON event with the id, and the version in the metadata', () => {
    const data = toEventData({
      eventId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      type: 'MessageReceived',
      schemaVersion: 3,
      data: { text: 'hi' },
      metadata: { tenantId: 't1' },
    });
    expect(data).toEqual({
      id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      contentType: 'application/json',
      type: 'MessageReceived',
      data: { text: 'hi' },
      metadata: { tenantId: 't1', [SCHEMA_VERSION_KEY]: 3 },
    });
  });
});

describe('toRecordedEvent', () => {
  it('maps every field and strips the version from the metadata', () => {
    expect(toRecordedEvent(esdbEvent())).toEqual({
      eventId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      type: 'MessageReceived',
      schemaVersion: 2,
      data: { text: 'hi' },
      metadata: { tenantId: 't1' },
      stream: 'session-1',
      revision: 4n,
      position: { commit: 1200n, prepare: 1100n },
      recordedAt: new Date('2024-05-01T10:00:00.000Z'),
    });
  });

  it('keeps data a record for events written by other tools', () => {
    const binary = esdbEvent({
      isJson: false,
      data: new Uint8Array([104, 105]),
    } as Partial<AllStreamRecordedEvent>);
    expect(toRecordedEvent(binary).data).toEqual({ base64: 'aGk=' });
    expect(toRecordedEvent(esdbEvent({ data: [1, 2] })).data).toEqual({ value: [1, 2] });
    expect(toRecordedEvent(esdbEvent({ metadata: undefined })).metadata).toEqual({});
  });
});

describe('system events', () => {
  it('are the $-typed ones and anything in a $ stream', () => {
    expect(isSystemEvent({ type: '$>', streamId: '$ce-session' })).toBe(true);
    expect(isSystemEvent({ type: '$metadata', streamId: '$$session-1' })).toBe(true);
    expect(isSystemEvent({ type: 'update', streamId: '$settings' })).toBe(true);
    expect(isSystemEvent({ type: 'MessageReceived', streamId: 'session-1' })).toBe(false);
  });

  it('are never wanted, whatever the requested types', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (type, stream) => {
        expect(isWanted({ type: `$${type}`, streamId: stream }, new Set([`$${type}`]))).toBe(false);
        expect(isWanted({ type, streamId: `$${stream}` })).toBe(false);
      }),
    );
  });

  it('leave user events wanted when they have one of the types, or when no types are asked', () => {
    const event = { type: 'MessageReceived', streamId: 'session-1' };
    expect(isWanted(event)).toBe(true);
    expect(isWanted(event, new Set(['MessageReceived']))).toBe(true);
    expect(isWanted(event, new Set(['AgentReplied']))).toBe(false);
  });
});

describe('eventTypesRegex', () => {
  // .NET and JavaScript agree on anchors, alternation, non-capturing groups and backslash escapes.
  it('matches exactly the listed types, special characters included', () => {
    const type = fc.string({
      minLength: 1,
      unit: fc.constantFrom(
        'a',
        'B',
        '.',
        '*',
        '+',
        '?',
        '(',
        ')',
        '[',
        ']',
        '|',
        '^',
        '$',
        '\\',
        '{',
        '}',
        '-',
      ),
    });
    fc.assert(
      fc.property(fc.array(type, { minLength: 1, maxLength: 5 }), type, (types, probe) => {
        const regex = new RegExp(eventTypesRegex(types));
        for (const t of types) expect(regex.test(t)).toBe(true);
        expect(regex.test(probe)).toBe(types.includes(probe));
      }),
    );
  });
});

describe('error mapping', () => {
  it('maps the WrongExpectedVersionError the client builds from an append response', () => {
    const esdb = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 's-1',
      expected: 3n,
      current: 5n,
    });
    expect(isEsdbWrongExpectedVersion(esdb)).toBe(true);
    const mapped = toWrongExpectedVersionError(esdb, 's-1', 3n);
    expect(mapped).toBeInstanceOf(WrongExpectedVersionError);
    expect(mapped).toMatchObject({ stream: 's-1', expected: 3n, actual: 5n, code: 'WRONG_EXPECTED_VERSION' });
    expect(mapped.cause).toBe(esdb);

    const missing = new EsdbWrongExpectedVersionError(undefined, {
      streamName: 's-2',
      expected: STREAM_EXISTS,
      current: NO_STREAM,
    });
    expect(toWrongExpectedVersionError(missing, 's-2', 'stream_exists').actual).toBe('no_stream');
  });

  it('maps the one the client converts from a gRPC error, with or without an actual version', () => {
    const grpcError = (map: Record<string, string>) =>
      Object.assign(new Error('wrong expected version'), {
        code: 9,
        details: '',
        metadata: { getMap: () => map },
      });
    const withActual = convertToCommandError(
      grpcError({
        exception: 'wrong-expected-version',
        'stream-name': 's-3',
        'expected-version': '1',
        'actual-version': '7',
      }),
    );
    expect(isEsdbWrongExpectedVersion(withActual)).toBe(true);
    if (!isEsdbWrongExpectedVersion(withActual)) return;
    expect(toWrongExpectedVersionError(withActual, 's-3', 1n).actual).toBe(7n);

    const noStream = convertToCommandError(
      grpcError({ exception: 'wrong-expected-version', 'stream-name': 's-4', 'expected-version': '1' }),
    );
    if (!isEsdbWrongExpectedVersion(noStream))
      throw new Error('expected the client to build a WrongExpectedVersionError');
    expect(toWrongExpectedVersionError(noStream, 's-4', 1n).actual).toBe('no_stream');
  });

  it('reads the -1 some paths use for a missing stream as no_stream', () => {
    expect(toActualRevision(-1n)).toBe('no_stream');
    expect(toActualRevision(NO_STREAM)).toBe('no_stream');
    expect(toActualRevision(0n)).toBe(0n);
  });

  it('leaves other client errors alone', () => {
    expect(isEsdbWrongExpectedVersion(new StreamNotFoundError(undefined, 's-5'))).toBe(false);
    expect(isEsdbWrongExpectedVersion(new Error('boom'))).toBe(false);
  });
});
