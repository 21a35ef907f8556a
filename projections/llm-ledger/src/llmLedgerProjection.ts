import { defineProjection, type RowOf, utcDay } from '@parley/projection-runner';
import { callOf } from './callOf.js';
import { ledgerId, ledgerRow, payloadStateOf } from './ledgerRow.js';
import { llmCallMeasureColumns } from './llmCallColumns.js';

/** The filters a page's index walk can test without visiting the table (the rollup's columns). */
const FILTER_COLUMNS = ['model', 'provider', 'status', 'environment', 'source', 'source_subtype'] as const;

/** The ledger columns the rollup groups by (a type alias: rows are checked against it bivariantly). */
type LedgerRollupInput = {
  project_id: string;
  started_at: Date | string;
  model: string;
  provider: string;
  status: string;
  environment: string | null;
  source: string;
  source_subtype: string;
};

/**
 * The LLM call ledger (spec 000 §2.3): one row per call in `llm_ledger`, and the call's prompt and
 * response, where stored, in `llm_ledger_payloads`, keyed alike, so that summary pages never read
 * a payload. A call recorded again (same session and callId) replaces the earlier record: the
 * last one in log order wins, in both tables.
 */
export const llmLedgerProjection = defineProjection({
  name: 'llm-ledger',
  // 2: the day-count rollup and the filter columns in the sort indexes.
  version: 2,
  eventTypes: ['LlmCallRecorded'],
  tables: {
    llm_ledger: {
      columns: {
        project_id: 'text',
        id: 'text',
        call_id: 'text',
        session_id: { type: 'text', nullable: true },
        trace_id: { type: 'text', nullable: true },
        event_id: 'text',
        model: 'text',
        provider: 'text',
        agent_name: 'text',
        environment: { type: 'text', nullable: true },
        channel: { type: 'text', nullable: true },
        channel_type: { type: 'text', nullable: true },
        status: 'text',
        status_code: 'integer',
        ...llmCallMeasureColumns,
        started_at: 'timestamptz',
        source: 'text',
        source_subtype: 'text',
        source_id: { type: 'text', nullable: true },
        payload_state: 'text',
        /** Serialised size of the stored payload (0 when none): pages are cut to 1 MiB before reading payloads. */
        payload_bytes: 'integer',
      },
      primaryKey: ['project_id', 'id'],
      // The time window is always given; each sort walks its own index, `id` last for the tiebreak.
      // The filter columns ride along (INCLUDE): a walk tests the window and the filters in the index
      // and visits the table only for the rows it returns (a by-cost page of rare matches: 1.4 s →
      // docs/performance.md).
      indexes: [
        { columns: ['project_id', 'started_at', 'id'], include: FILTER_COLUMNS },
        { columns: ['project_id', 'latency_ms', 'id'], include: ['started_at', ...FILTER_COLUMNS] },
        { columns: ['project_id', 'cost', 'id'], include: ['started_at', ...FILTER_COLUMNS] },
        { columns: ['project_id', 'total_tokens', 'id'], include: ['started_at', ...FILTER_COLUMNS] },
        { columns: ['project_id', 'session_id'] },
      ],
      // Exact per-day counts for the page's `total` (ledgerTotal.ts): whole days of the window are
      // summed here, only its partial edge days are counted row by row.
      rollups: {
        llm_ledger_day_counts: {
          columns: {
            project_id: 'text',
            day: 'timestamptz',
            model: 'text',
            provider: 'text',
            status: 'text',
            environment: 'text',
            source: 'text',
            source_subtype: 'text',
          },
          groups: (row: LedgerRollupInput) => [
            {
              project_id: row.project_id,
              day: utcDay(row.started_at),
              model: row.model,
              provider: row.provider,
              status: row.status,
              environment: row.environment ?? '',
              source: row.source,
              source_subtype: row.source_subtype,
            },
          ],
        },
      },
    },
    llm_ledger_payloads: {
      columns: {
        project_id: 'text',
        id: 'text',
        /** `{ prompt, response }` as recorded. */
        payload: 'jsonb',
      },
      primaryKey: ['project_id', 'id'],
    },
  },
  handlers: {
    llm_ledger: {
      keys: (event) => {
        const call = callOf(event);
        return call ? [{ project_id: call.projectId, id: ledgerId(call) }] : [];
      },
      evolve: (row, event) => {
        const call = callOf(event);
        return call ? ledgerRow(call, event) : row;
      },
    },
    llm_ledger_payloads: {
      // Every call touches its payload row, so a call recorded again without a payload removes
      // the earlier one.
      keys: (event) => {
        const call = callOf(event);
        return call ? [{ project_id: call.projectId, id: ledgerId(call) }] : [];
      },
      evolve: (row, event) => {
        const call = callOf(event);
        if (!call) return row;
        if (payloadStateOf(call.payload) !== 'available') return undefined;
        return { project_id: call.projectId, id: ledgerId(call), payload: call.payload };
      },
    },
  },
});

export type LedgerRow = RowOf<typeof llmLedgerProjection.tables.llm_ledger>;
export type LedgerPayloadRow = RowOf<typeof llmLedgerProjection.tables.llm_ledger_payloads>;
