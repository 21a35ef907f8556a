/** Plain aligned columns for terminal output. */
export function formatTable(rows: ReadonlyArray<Record<string, string>>): string {
  if (rows.length === 0) return '(none)\n';
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return line(columns) + rows.map((r) => line(columns.map((c) => r[c] ?? ''))).join('');
}
