/** Series colours: distinguishable, readable on white, the same key keeps its colour on every chart. */
export const PALETTE = [
  '#2458d3',
  '#e8710a',
  '#0b8a5f',
  '#c2185b',
  '#7b3fe4',
  '#00838f',
  '#b7791f',
  '#5d6b82',
  '#d93025',
  '#2e7d32',
  '#8e24aa',
  '#1565c0',
];

export function colorFor(index: number): string {
  return PALETTE[((index % PALETTE.length) + PALETTE.length) % PALETTE.length] as string;
}
