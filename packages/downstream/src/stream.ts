import { type JetStreamManager, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEFAULT_STREAM_NAME, SUBJECT_PREFIX } from './contract.js';

export type StreamRetention = 'limits' | 'interest' | 'workqueue';

/** The JetStream stream the relay publishes to; created or updated when the relay starts. */
export interface StreamSettings {
  /** Default PARLEY_EVENTS. */
  name?: string;
  /** Default `parley.>`. */
  subjects?: string[];
  /** Default `limits` (consumers can replay from any point the limits keep). */
  retention?: StreamRetention;
  /** Oldest message kept, milliseconds; 0 or unset: no age limit. */
  maxAgeMs?: number;
  /** Bytes kept; unset: no limit. */
  maxBytes?: number;
  /** Messages kept; unset: no limit. */
  maxMsgs?: number;
  /** Copies in a cluster (1–5). Default 1. */
  replicas?: number;
  /** How long JetStream remembers a Nats-Msg-Id to drop a repeat, milliseconds. Default 2 minutes. */
  duplicateWindowMs?: number;
}

export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

const retentions: Record<StreamRetention, RetentionPolicy> = {
  limits: RetentionPolicy.Limits,
  interest: RetentionPolicy.Interest,
  workqueue: RetentionPolicy.Workqueue,
};

/** The stream configuration the settings describe (without defaults the server fills in). */
export function streamConfig(settings: StreamSettings = {}): Partial<StreamConfig> & { name: string } {
  const duplicateWindowMs = settings.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
  return {
    name: settings.name ?? DEFAULT_STREAM_NAME,
    subjects: settings.subjects ?? [`${SUBJECT_PREFIX}.>`],
    retention: retentions[settings.retention ?? 'limits'],
    storage: StorageType.File,
    max_age: nanos(settings.maxAgeMs ?? 0),
    max_bytes: settings.maxBytes ?? -1,
    max_msgs: settings.maxMsgs ?? -1,
    num_replicas: settings.replicas ?? 1,
    duplicate_window: nanos(duplicateWindowMs),
  };
}

/**
 * Creates the stream, or updates it to these settings when it exists (retention and storage cannot
 * change on an existing stream: JetStream refuses, and so does this). Returns the stream's name.
 */
export async function ensureStream(jsm: JetStreamManager, settings: StreamSettings = {}): Promise<string> {
  const config = streamConfig(settings);
  let exists = true;
  try {
    await jsm.streams.info(config.name);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    exists = false;
  }
  if (exists) {
    const { name, ...rest } = config;
    await jsm.streams.update(name, rest);
  } else {
    await jsm.streams.add(config);
  }
  return config.name;
}

function isStreamNotFound(err: unknown): boolean {
  const e = err as { name?: string; code?: number; api_error?: { err_code?: number }; message?: string };
  return (
    e?.api_error?.err_code === 10059 ||
    e?.name === 'StreamNotFoundError' ||
    /stream not found/i.test(String(e?.message ?? ''))
  );
}
