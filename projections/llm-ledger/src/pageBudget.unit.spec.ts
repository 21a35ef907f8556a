import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from './ledgerRecord.js';
import {
  fitCount,
  GENERATIONS_BUDGET_BYTES,
  jsonBytes,
  MIN_RECORD_BYTES,
  maxRowsWithin,
  PAYLOAD_KEY_BYTES,
  RESPONSE_BODY_LIMIT_BYTES,
} from './pageBudget.js';

const record: LedgerRecord = {
  id: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0:llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
  model: 'gpt-4o-mini-2024-07-18',
  agentName: 'billing-assistant',
  provider: 'openai',
  environment: 'production',
  status: 'success',
  inputTokens: 1843,
  cachedTokens: 1024,
  completionTokens: 61,
  reasoningTokens: 0,
  outputTokens: 61,
  totalTokens: 1904,
  latencyMs: 1289,
  timeToFirstTokenMs: 342,
  streamingUsed: true,
  cost: 0.00031305,
  timestamp: '2024-11-21T09:15:07.480Z',
  sessionId: 'sess_01JDQ2W8Z6X1V4N3K7H5C2B9M0',
  callId: 'llm_01JDQ2X0Z9Y8X7W6V5U4T3S2R1',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  eventId: '0b0c2f4e-8f3a-4d8e-9a57-6c1b2f7d9e10',
  source: 'runtime',
  sourceSubtype: 'response_generation',
  sourceLabel: 'Runtime',
  sourceSubtypeLabel: 'Response generation',
  sourceId: '',
  channel: 'voice_pipeline',
  channelType: 'pstn',
  statusCode: 200,
  payloadState: 'available',
};

describe('page budget', () => {
  it('keeps the envelope reserve inside 1 MiB', () => {
    expect(RESPONSE_BODY_LIMIT_BYTES).toBe(1024 * 1024);
    expect(GENERATIONS_BUDGET_BYTES).toBe(1024 * 1024 - 4096);
  });

  it('bounds any record from below', () => {
    expect(MIN_RECORD_BYTES).toBeLessThan(jsonBytes(record));
    expect(MIN_RECORD_BYTES).toBeLessThan(
      jsonBytes({ ...record, sourceId: '', channel: '', channelType: '' }),
    );
    expect(MIN_RECORD_BYTES).toBeGreaterThan(400);
  });

  it('shows why the summary mode needs the cap too: 10,000 realistic rows are several MiB', () => {
    const size = jsonBytes(Array.from({ length: 10_000 }, () => record));
    expect(size).toBeGreaterThan(6 * RESPONSE_BODY_LIMIT_BYTES);
    expect(maxRowsWithin(GENERATIONS_BUDGET_BYTES)).toBeLessThan(10_000);
  });

  it('fits records in order, with brackets and commas counted exactly', () => {
    const sizes = [10, 10, 10];
    expect(fitCount(sizes, 2 + 10 + 1 + 10)).toBe(2);
    expect(fitCount(sizes, 2 + 10 + 1 + 10 + 1 + 10)).toBe(3);
    expect(fitCount(sizes, 2 + 10 + 1 + 10 + 1 + 9)).toBe(2);
    expect(fitCount([], 100)).toBe(0);
    // The first record always goes in, so paging always moves on.
    expect(fitCount([500], 100)).toBe(1);
  });

  it('matches the serialised array byte for byte', () => {
    const records = [record, { ...record, agentName: 'agent-ünïcödé-✓' }, record];
    const budget = jsonBytes(records);
    expect(fitCount(records.map(jsonBytes), budget)).toBe(3);
    expect(fitCount(records.map(jsonBytes), budget - 1)).toBe(2);
  });

  it('prices the payload key as it serialises', () => {
    const payload = { prompt: 'p', response: 'r' };
    expect(jsonBytes({ ...record, payload })).toBe(
      jsonBytes(record) + PAYLOAD_KEY_BYTES + jsonBytes(payload),
    );
  });
});
