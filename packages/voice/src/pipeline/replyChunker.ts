/** A complete sentence at the start of the text (ends with . ! ? or a newline, then space). */
const SENTENCE = /^([\s\S]*?(?:[.!?]+|\n))(\s+)/;
/** A clause at the start of the text (ends with , ; : or a dash, then space). */
const CLAUSE = /^([\s\S]*?(?:[,;:]|\s[-–—]))(\s+)/;
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
    const clause = this.first ? CLAUSE.exec(this.pending) : null;
    let m: RegExpExecArray | null = sentence;
    if (clause !== null && (clause[1] as string).trim().length >= FIRST_CLAUSE_MIN_CHARS)
      if (sentence === null || clause[0].length < sentence[0].length) m = clause;
    if (m === null) {
      if (this.pending.length <= MAX_CHUNK_CHARS) return null;
      const space = this.pending.lastIndexOf(' ', MAX_CHUNK_CHARS);
      if (space <= 0) return null;
      return this.take(this.pending.slice(0, space), space + 1);
    }
    return this.take(m[1] as string, m[0].length);
  }

  private take(chunk: string, length: number): string | null {
    this.pending = this.pending.slice(length);
    const text = chunk.trim();
    if (text === '') return this.next();
    this.first = false;
    return text;
  }
}
