import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from './csv.js';
import { TRACE_CSV_COLUMNS, traceCsvRecord } from './exportTraces.js';
import { parseCsv } from './testing/parseCsv.js';
import type { TraceEventRow } from './tracesProjection.js';

// Text rich in the characters RFC 4180 cares about, plus any Unicode.
const field = fc.oneof(
  fc.string({ unit: fc.constantFrom(',', '"', '\r', '\n', ' ', 'a', 'é', '😀', "'", ';') }),
  fc.string({ unit: 'grapheme' }),
);

describe('csv (RFC 4180)', () => {
  it('quotes exactly the fields that need it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(42)).toBe('42');
    expect(csvRecord(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
  });

  it('any records written are read back exactly by a strict parser', () => {
    fc.assert(
      fc.property(fc.array(fc.array(field, { minLength: 1, maxLength: 6 }), { maxLength: 20 }), (records) => {
        // A record of one empty field is an empty line, which RFC 4180 cannot tell from no field.
        const writable = records.filter((r) => !(r.length === 1 && r[0] === ''));
        const text = writable.map(csvRecord).join('');
        expect(parseCsv(text)).toEqual(writable);
      }),
      { numRuns: 2000 },
    );
  });

  it('a trace event row becomes one record of the documented columns', () => {
    fc.assert(
      fc.property(
        fc.record({
          name: fc.option(field, { nil: null }),
          decision_kind: fc.option(field, { nil: null }),
          attributes: fc.dictionary(field, field, { maxKeys: 3, noNullPrototype: true }),
          duration_ms: fc.option(fc.nat(), { nil: null }),
        }),
        ({ name, decision_kind, attributes, duration_ms }) => {
          const row: TraceEventRow = {
            project_id: 'p',
            session_id: 's,1',
            event_id: 'e"1',
            seq: 0,
            trace_id: 't',
            span_id: 'a\nb',
            parent_span_id: null,
            event_type: 'decision',
            name,
            status: 'ok',
            decision_kind,
            llm_call_id: null,
            started_at: new Date('2026-11-21T09:00:00.000Z'),
            duration_ms,
            ended_at: duration_ms === null ? null : new Date(Date.UTC(2026, 10, 21, 9) + duration_ms),
            attributes,
          };
          const [record, ...rest] = parseCsv(traceCsvRecord(row));
          expect(rest).toEqual([]);
          expect(record).toHaveLength(TRACE_CSV_COLUMNS.length);
          const byColumn = Object.fromEntries(TRACE_CSV_COLUMNS.map((c, i) => [c, record![i]]));
          expect(byColumn).toEqual({
            sessionId: 's,1',
            eventId: 'e"1',
            traceId: 't',
            spanId: 'a\nb',
            parentSpanId: '',
            eventType: 'decision',
            name: name ?? '',
            status: 'ok',
            decisionKind: decision_kind ?? '',
            llmCallId: '',
            startedAt: '2026-11-21T09:00:00.000Z',
            endedAt: row.ended_at?.toISOString() ?? '',
            durationMs: duration_ms === null ? '' : String(duration_ms),
            attributes: JSON.stringify(attributes),
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
