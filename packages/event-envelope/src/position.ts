/**
 * A place in the whole log. Totally ordered: compare with comparePositions.
 * PostgreSQL: commit = the appending transaction's id (xid8), prepare = the
 * event's sequence number. EventStoreDB: its own commit/prepare positions.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: Position = Object.freeze({ commit: 0n, prepare: 0n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** `commit/prepare`, the form positions take in checkpoints, logs and the CLI. */
export function formatPosition(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function parsePosition(text: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`not a log position: ${JSON.stringify(text)} (expected commit/prepare)`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}
