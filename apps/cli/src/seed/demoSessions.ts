import type { IngestItemKind } from '@parley/ingest';
import { demoLlmCall } from './demoLlmCall.js';
import { type DemoTurnContext, demoTurn } from './demoTurn.js';
import { createRandom, type Random } from './random.js';
import {
  AGENTS,
  CALLER_NUMBERS,
  CHANNEL_TYPES,
  CHANNEL_WEIGHTS,
  callerNumber,
  DESIGN_TIME_PURPOSES,
  ENVIRONMENT_WEIGHTS,
  isVoice,
  OUTCOMES,
  type Outcome,
  TRACE_DIMENSIONS,
} from './vocabulary.js';

/** One item of `POST /api/v1/ingest` (packages/ingest/README.md). */
export interface DemoItem {
  id: string;
  type: IngestItemKind;
  data: Record<string, unknown>;
}

export const DAY_MS = 86_400_000;
/** The seed's active sessions had their latest activity at most this long before `now`. */
export const ACTIVE_WITHIN_MS = 120_000;

/** Sessions start within this window before `now`. */
export const SPREAD_MS = 7 * DAY_MS;
/** One design-time call (no session) per this many sessions. */
const SESSIONS_PER_DESIGN_TIME_CALL = 10;
const TIME_FIELDS = ['startedAt', 'endedAt', 'receivedAt', 'sentAt', 'repliedAt'] as const;

/**
 * The first rounds visit every value in turn, so that even a small seed shows every channel,
 * environment and outcome; after that, values come by weight, as real traffic would.
 */
function rotate<T>(random: Random, index: number, entries: ReadonlyArray<readonly [T, number]>): T {
  if (index < entries.length * 2) return entries[index % entries.length]![0];
  return random.weighted(entries);
}

/** Gap between turns, by channel: people type in seconds, talk faster, answer e-mail in minutes. */
function turnGapMs(random: Random, channel: string): number {
  if (channel === 'email') return random.int(5, 90) * 60_000;
  if (isVoice(channel)) return random.int(2_000, 12_000);
  if (channel === 'api' || channel === 'http_async') return random.int(1_000, 30_000);
  return random.int(5_000, 90_000);
}

function channelUserId(random: Random, channel: string): string | undefined {
  const n = random.int(1, 400);
  switch (channel) {
    case 'email':
      return `customer${n}@example.com`;
    case 'web_chat':
    case 'sdk_web':
      return `visitor-${n.toString(36).padStart(4, '0')}`;
    case 'api':
    case 'http_async':
      return `crm-contact-${1000 + n}`;
    default:
      return random.chance(0.5) ? `caller-${n}` : undefined;
  }
}

function traceDimensions(random: Random): Record<string, string> {
  const dims: Record<string, string> = {
    region: random.pick(TRACE_DIMENSIONS.region),
    plan: random.pick(TRACE_DIMENSIONS.plan),
  };
  if (random.chance(0.6)) dims.locale = random.pick(TRACE_DIMENSIONS.locale);
  if (random.chance(0.2)) dims.campaign = random.pick(TRACE_DIMENSIONS.campaign);
  return dims;
}

/** Turns the relative times (ms after the session's start) into ISO timestamps. */
/** The latest of the items' times, still relative to the session's start. */
function latestOffset(items: readonly DemoItem[]): number {
  let latest = 0;
  for (const item of items) {
    for (const field of TIME_FIELDS) {
      const offset = item.data[field];
      if (typeof offset === 'number') latest = Math.max(latest, offset);
    }
  }
  return latest;
}

function placeInTime(items: DemoItem[], base: number): void {
  for (const item of items) {
    for (const field of TIME_FIELDS) {
      const offset = item.data[field];
      if (typeof offset === 'number') item.data[field] = new Date(base + offset).toISOString();
    }
  }
}

/** What a run carries from one session to the next. */
export interface DemoRun {
  /** Voice sessions so far: the first ones show each named caller format once. */
  voiceCalls: number;
}

/** The ingest items of the `index`-th demo session: start, turns with traces and LLM calls, end. */
export function demoSession(random: Random, index: number, now: number, run: DemoRun): DemoItem[] {
  const sessionId = `demo-${random.hex(24)}`;
  const channel = rotate(random, index, CHANNEL_WEIGHTS);
  const environment = rotate(random, index, ENVIRONMENT_WEIGHTS);
  const outcome = rotate(random, index, OUTCOMES);
  const channelTypes = CHANNEL_TYPES[channel];
  const channelType = channelTypes ? random.pick(channelTypes) : undefined;
  const agentName = random.pick(AGENTS);
  const items: DemoItem[] = [];
  const add = (type: IngestItemKind, data: Record<string, unknown>) =>
    items.push({ id: `${sessionId}/${items.length}`, type, data: { sessionId, ...data } });

  const userId = channelUserId(random, channel);
  const isTest = environment === 'production' ? false : random.chance(0.4);
  add('session.started', {
    agentName,
    channel,
    ...(channelType && { channelType }),
    environment,
    ...(userId && { channelUserId: userId }),
    ...(isVoice(channel) && {
      callerNumber: CALLER_NUMBERS[run.voiceCalls++] ?? callerNumber(random),
    }),
    ...(channel === 'http_async' && { externalSessionKey: `thread-${random.hex(12)}` }),
    deploymentId: `dep_2026_11_${String(random.int(1, 20)).padStart(2, '0')}`,
    traceDimensions: traceDimensions(random),
    ...(random.chance(0.9) && { isTest }),
    startedAt: 0,
  });

  const turns =
    outcome.status === 'active'
      ? random.int(1, 2)
      : random.weighted([
          [1, 2],
          [2, 4],
          [3, 4],
          [4, 2],
          [5, 1],
        ] as const);
  const turn: DemoTurnContext = {
    random,
    add,
    sessionId,
    traceId: random.hex(32),
    agentName,
    channel,
    channelType,
    environment,
    at: random.int(300, 3_000),
  };
  for (let t = 0; t < turns; t++) {
    demoTurn(turn, { turn: t, last: t === turns - 1, outcome });
    turn.at += turnGapMs(random, channel);
  }
  if (outcome.status !== 'active') {
    const idle = outcome.reason === 'idle_timeout' || outcome.status === 'abandoned' ? 300_000 : 2_000;
    add('session.ended', {
      status: outcome.status,
      ...(outcome.containmentType && { containmentType: outcome.containmentType }),
      ...(outcome.reason && { reason: outcome.reason }),
      endedAt: turn.at + idle,
    });
  }

  // Ended sessions anywhere in the window. Active ones were last active less than two minutes ago:
  // the worker's lifecycle sweep idles a session after SESSION_IDLE_AFTER_SECONDS (default 5 min)
  // without activity, and the demo's states must be what the seed says they are.
  const duration = turn.at + 300_000;
  const base =
    outcome.status === 'active'
      ? now - latestOffset(items) - random.int(10_000, ACTIVE_WITHIN_MS)
      : now - duration - Math.floor(random.next() * Math.max(SPREAD_MS - duration - 60_000, 0));
  placeInTime(items, Math.max(base, now - SPREAD_MS + 1_000));
  return items;
}

/** The longest a recorded demo call's conversation runs (its session ends a minute after the start). */
const CALL_CONVERSATION_MS = 50_000;

/**
 * The conversation of a recorded demo call (demoRecordings appends its start, end and recordings):
 * voice turns with their traces, LLM calls and replies, so that one session shows everything.
 */
export function demoCallConversation(
  random: Random,
  call: { sessionId: string; startedAt: number; agentName: string },
): DemoItem[] {
  const { sessionId } = call;
  const items: DemoItem[] = [];
  const add = (type: IngestItemKind, data: Record<string, unknown>) =>
    items.push({ id: `${sessionId}/${items.length}`, type, data: { sessionId, ...data } });
  const turn: DemoTurnContext = {
    random,
    add,
    sessionId,
    traceId: random.hex(32),
    agentName: call.agentName,
    channel: 'voice_pipeline',
    channelType: undefined,
    environment: 'production',
    at: random.int(800, 2_000),
  };
  const outcome: Outcome = { status: 'completed', containmentType: 'contained_resolved' };
  for (let t = 0; t < 3 && turn.at < CALL_CONVERSATION_MS / 2; t++) {
    demoTurn(turn, { turn: t, last: t === 2, outcome });
    turn.at += random.int(1_000, 4_000);
  }
  placeInTime(items, call.startedAt);
  return items;
}

/** A call made outside any session (design time): no session, environment or channel. */
export function designTimeCall(random: Random, now: number): DemoItem {
  const [source, sourceSubtype] = random.weighted(DESIGN_TIME_PURPOSES);
  const data = demoLlmCall(random, {
    agentName: random.pick(['studio-architect', 'eval-runner', 'prompt-lab']),
    source,
    sourceSubtype,
    turn: random.int(0, 3),
    streaming: false,
  });
  data.sourceId = `${source.split(/[_:]/)[0]}_${random.hex(10)}`;
  data.startedAt = new Date(now - Math.floor(random.next() * (SPREAD_MS - 60_000)) - 60_000).toISOString();
  return { id: `design-${data.callId as string}`, type: 'llm.call', data };
}

export interface DemoPlan {
  sessions: number;
  /** The same seed (and `now`) gives the same items. */
  seed: number;
  now: number;
}

/** Every item of a seed run, a session at a time (one design-time call rides along every tenth). */
export function* demoItems(plan: DemoPlan): Generator<DemoItem[]> {
  const random = createRandom(plan.seed);
  const run: DemoRun = { voiceCalls: 0 };
  for (let index = 0; index < plan.sessions; index++) {
    const items = demoSession(random, index, plan.now, run);
    if (index % SESSIONS_PER_DESIGN_TIME_CALL === 0) items.push(designTimeCall(random, plan.now));
    yield items;
  }
}
