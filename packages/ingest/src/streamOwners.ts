import { canAppendInTransaction, type EventStore, type RecordedEvent } from '@parley/eventstore';

function ownerOf(first: RecordedEvent): string {
  const named = first.data.projectId ?? first.metadata.projectId;
  // A first event naming no project belongs to no project a key acts for.
  return typeof named === 'string' ? named : '';
}

/** Streams read at once while finding their owners (each read is one indexed row). */
const CONCURRENCY = 8;

/**
 * The project each stream belongs to: the `projectId` of its first event (its data, where every
 * session and recording event carries it, else its metadata), null when the
 * stream does not exist yet. A session or recording id is chosen by the client and streams are
 * named by it alone (`session-<id>`, `recording-<id>`), so this is what keeps a key of one project
 * from appending to another project's stream.
 */
export async function streamOwners(
  store: EventStore,
  streams: readonly string[],
): Promise<Map<string, string | null>> {
  const owners = new Map<string, string | null>();
  if (canAppendInTransaction(store)) {
    // The PostgreSQL log reads every stream's first event in one query.
    const firsts = await store.readFirstEvents(streams);
    for (const stream of streams) {
      const first = firsts.get(stream);
      owners.set(stream, first ? ownerOf(first) : null);
    }
    return owners;
  }
  const queue = [...streams];
  const worker = async () => {
    for (let stream = queue.shift(); stream !== undefined; stream = queue.shift()) {
      let owner: string | null = null;
      for await (const first of store.readStream(stream, { maxCount: 1 })) {
        owner = ownerOf(first);
      }
      owners.set(stream, owner);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return owners;
}
