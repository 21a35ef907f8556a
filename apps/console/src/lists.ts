/**
 * Repeated and/or comma-separated values (a hash query's `getAll`, or a text box), trimmed, empties
 * dropped, first occurrence kept: how every list filter of the console is read.
 */
export function listValues(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of values) {
    for (const part of raw.split(',')) {
      const v = part.trim();
      if (v && !out.includes(v)) out.push(v);
    }
  }
  return out;
}
