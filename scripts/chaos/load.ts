import { randomUUID } from 'node:crypto';

/** Answers by status; `network` counts requests that got no HTTP answer (refused, reset, timed out). */
export type StatusCounts = Record<string, number>;

export interface LoadStats {
  /** Items whose batch was answered 200 (every item accepted). */
  acknowledged: { sessions: number; messages: number };
  ingest: StatusCounts;
  reads: StatusCounts;
  /** Every answer, in order of arrival: what recovery times are measured on. */
  timeline: Array<{ at: number; kind: 'ingest' | 'read'; status: number | 'network' }>;
}

export interface LoadTarget {
  /** API base URLs; each request goes to the next one (round robin), as a load balancer would. */
  apis: () => readonly string[];
  projectId: string;
  ingestKey: string;
  analyticsKey: string;
}

export interface LoadOptions {
  ingestClients: number;
  readClients: number;
  /** Sessions per ingest batch (each: one session.started and `messagesPerSession` message.user items). */
  sessionsPerBatch: number;
  messagesPerSession: number;
  /** Pause between a client's requests while they succeed (ms). */
  pauseMs: number;
}

export const defaultLoad: LoadOptions = {
  ingestClients: 4,
  readClients: 2,
  sessionsPerBatch: 5,
  messagesPerSession: 3,
  pauseMs: 20,
};

export interface Load {
  readonly stats: LoadStats;
  /** Stops new batches; every client retries its unacknowledged batch (the same ids) until it is answered 200. */
  drain(timeoutMs: number): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;
/** Retries of a failed batch: fast enough to time a recovery to a tenth of a second, capped. */
const retryDelay = (attempt: number) => Math.min(50 * 2 ** attempt, 400) * (0.75 + Math.random() / 2);

/**
 * Ingest clients post batches of new sessions and, on any answer but 200, retry the very same batch
 * (same item ids: ingest is idempotent by id) until it is acknowledged. Read clients page the session
 * list. Every answer is counted by status.
 */
export function startLoad(target: LoadTarget, options: LoadOptions = defaultLoad): Load {
  const stats: LoadStats = {
    acknowledged: { sessions: 0, messages: 0 },
    ingest: {},
    reads: {},
    timeline: [],
  };
  let draining = false;
  let stopReads = false;
  let next = 0;
  const pick = () => {
    const apis = target.apis();
    return apis[next++ % apis.length] as string;
  };
  const count = (kind: 'ingest' | 'read', status: number | 'network') => {
    const bucket = kind === 'ingest' ? stats.ingest : stats.reads;
    bucket[String(status)] = (bucket[String(status)] ?? 0) + 1;
    stats.timeline.push({ at: Date.now(), kind, status });
  };

  async function post(body: string): Promise<number | 'network'> {
    try {
      const res = await fetch(`${pick()}/api/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': target.ingestKey },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 'network';
    }
  }

  async function ingestClient(client: number): Promise<void> {
    let batchNo = 0;
    while (!draining) {
      const body = JSON.stringify({ items: batchItems(`c${client}b${batchNo++}`, options) });
      for (let attempt = 0; ; attempt++) {
        const status = await post(body);
        count('ingest', status);
        if (status === 200) break;
        // A rejected item is the load's own mistake, not an outage: retrying it would never end.
        if (status === 207 || status === 400) throw new Error(`ingest answered ${status} to a valid batch`);
        await sleep(retryDelay(attempt));
      }
      stats.acknowledged.sessions += options.sessionsPerBatch;
      stats.acknowledged.messages += options.sessionsPerBatch * options.messagesPerSession;
      await sleep(options.pauseMs);
    }
  }

  async function readClient(): Promise<void> {
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    while (!stopReads) {
      const url = `${pick()}/api/public/analytics/projects/${target.projectId}/sessions?fromDate=${from}&toDate=${to}&limit=20`;
      let status: number | 'network';
      try {
        const res = await fetch(url, {
          headers: { 'x-api-key': target.analyticsKey },
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 'network';
      }
      count('read', status);
      await sleep(status === 200 ? options.pauseMs * 5 : retryDelay(2));
    }
  }

  const ingesters = Array.from({ length: options.ingestClients }, (_, i) => ingestClient(i));
  const readers = Array.from({ length: options.readClients }, () => readClient());

  return {
    stats,
    async drain(timeoutMs) {
      draining = true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, rej) => {
        timer = setTimeout(
          () => rej(new Error(`ingest clients still unacknowledged after ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([Promise.all(ingesters), timeout]);
      } finally {
        clearTimeout(timer);
        stopReads = true;
        await Promise.all(readers);
      }
    },
  };
}

function batchItems(key: string, options: LoadOptions): object[] {
  const items: object[] = [];
  const at = new Date().toISOString();
  for (let s = 0; s < options.sessionsPerBatch; s++) {
    const sessionId = `chaos-${key}s${s}-${randomUUID().slice(0, 8)}`;
    items.push({
      id: `${sessionId}:start`,
      type: 'session.started',
      data: {
        sessionId,
        agentName: 'chaos',
        channel: 'api',
        environment: 'production',
        traceDimensions: {},
        startedAt: at,
      },
    });
    for (let m = 0; m < options.messagesPerSession; m++) {
      items.push({
        id: `${sessionId}:m${m}`,
        type: 'message.user',
        data: { sessionId, messageId: `${sessionId}-m${m}`, text: 'Where is my order?', receivedAt: at },
      });
    }
  }
  return items;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Recovery after a dependency came back at `backAt`: how long until the first answer of each kind
 * that is a success (2xx), in ms; null when none came.
 */
export function recoveryMs(stats: LoadStats, backAt: number, kind: 'ingest' | 'read'): number | null {
  const first = stats.timeline.find(
    (t) => t.kind === kind && t.at >= backAt && typeof t.status === 'number' && t.status < 300,
  );
  return first === undefined ? null : first.at - backAt;
}

/** Answers of one kind between two instants, by status. */
export function statusesBetween(stats: LoadStats, from: number, to: number): StatusCounts {
  const out: StatusCounts = {};
  for (const t of stats.timeline)
    if (t.at >= from && t.at <= to) out[String(t.status)] = (out[String(t.status)] ?? 0) + 1;
  return out;
}
