/** A complete sentence at the start of the text (ends with . ! ? or a newline, then space). */
const SENTENCE = /^([\s\S]*?(?:[.!?]+|\n))(\s+)/;
/** Where a clause ends: , ; : or a dash, followed by space. */
const CLAUSE_END = /(?:[,;:]|\s[-–—])(\s+)/g;
/** The first chunk is cut at a clause once it is this long (shorter clauses wait for more). */
const FIRST_CLAUSE_MIN_CHARS = 12;
/** Text without punctuation is cut at a space past this many characters. */
const MAX_CHUNK_CHARS = 200;

/**
 * Cuts a reply streaming in as text deltas into the chunks it is spoken in: the first chunk ends
 * at the first clause (so that the first audio comes as early as possible), the next ones at
 * sentence ends; over-long runs without punctuation at a space.
 */
export class ReplyChunker {
  private pending = '';
  private first = true;

  /** The chunks the delta completes. */
  push(delta: string): string[] {
    this.pending += delta;
    const out: string[] = [];
    for (let chunk = this.next(); chunk !== null; chunk = this.next()) out.push(chunk);
    return out;
  }

  /** The rest, at the end of the reply. */
  end(): string[] {
    const rest = this.pending.trim();
    this.pending = '';
    return rest === '' ? [] : [rest];
  }

  private next(): string | null {
    const sentence = SENTENCE.exec(this.pending);
    const clause = this.first ? this.firstClause() : null;
    if (clause !== null && (sentence === null || clause.length < sentence[0].length))
      return this.take(this.pending.slice(0, clause.end), clause.length);
    const m = sentence;
    if (m === null) {
      if (this.pending.length <= MAX_CHUNK_CHARS) return null;
      const space = this.pending.lastIndexOf(' ', MAX_CHUNK_CHARS);
      if (space <= 0) return null;
      return this.take(this.pending.slice(0, space), space + 1);
    }
    return this.take(m[1] as string, m[0].length);
  }

  /** The first clause end with at least FIRST_CLAUSE_MIN_CHARS before it: the clause's end and its length with the space. */
  private firstClause(): { end: number; length: number } | null {
    for (const m of this.pending.matchAll(CLAUSE_END)) {
      const end = m.index + m[0].length - (m[1] as string).length;
      if (this.pending.slice(0, end).trim().length >= FIRST_CLAUSE_MIN_CHARS)
        return { end, length: m.index + m[0].length };
    }
    return null;
  }

  private take(chunk: string, length: number): string | null {
    this.pending = this.pending.slice(length);
    const text = chunk.trim();
    if (text === '') return this.next();
    this.first = false;
    return text;
  }
}
