import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allNodes, ancestorsOf, buildSpanTree, type SpanLike, visibleRows } from './spanTree.js';

const ev = (eventId: string, spanId: string, parentSpanId: string | null): SpanLike => ({
  eventId,
  spanId,
  parentSpanId,
});

/** Arbitrary events over a small span-id alphabet: duplicates, orphans and cycles all happen. */
const eventsArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.option(fc.integer({ min: 0, max: 9 }), { nil: null })), {
    maxLength: 30,
  })
  .map((rows) => rows.map(([s, p], i) => ev(`e${i}`, `s${s}`, p === null ? null : `s${p}`)));

describe('buildSpanTree', () => {
  it('nests by parentSpanId, in order', () => {
    const roots = buildSpanTree([
      ev('a', 'r', null),
      ev('b', 'c1', 'r'),
      ev('c', 'g', 'c1'),
      ev('d', 'c2', 'r'),
    ]);
    expect(roots).toHaveLength(1);
    expect(roots[0]?.children.map((c) => c.event.eventId)).toEqual(['b', 'd']);
    expect(roots[0]?.children[0]?.children[0]?.event.eventId).toBe('c');
    expect(roots[0]?.children[0]?.children[0]?.depth).toBe(2);
  });

  it('makes orphans roots and flags them', () => {
    const roots = buildSpanTree([ev('a', 'x', 'missing'), ev('b', 'y', null)]);
    expect(roots.map((r) => [r.event.eventId, r.orphan])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('breaks cycles and self-parents without losing an event', () => {
    const roots = buildSpanTree([ev('a', 'p', 'q'), ev('b', 'q', 'p'), ev('c', 's', 's')]);
    expect(
      allNodes(roots)
        .map((n) => n.event.eventId)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    const a = roots.find((r) => r.event.eventId === 'a');
    expect(a?.cycle).toBe(true);
    expect(a?.children[0]?.event.eventId).toBe('b');
  });

  it('shows every event exactly once, at a depth one below its tree parent', () => {
    fc.assert(
      fc.property(eventsArb, (events) => {
        const roots = buildSpanTree(events);
        const nodes = allNodes(roots);
        expect(nodes.map((n) => n.event.eventId).sort()).toEqual(events.map((e) => e.eventId).sort());
        for (const r of roots) expect(r.depth).toBe(0);
        for (const n of nodes) {
          for (const c of n.children) {
            expect(c.depth).toBe(n.depth + 1);
            // A child really names its tree parent's span.
            expect(c.event.parentSpanId).toBe(n.event.spanId);
          }
        }
      }),
    );
  });

  it('matches the parent exactly on acyclic data with unique span ids', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 40 }), (parents) => {
        // Event i's parent is an earlier event (or none): acyclic by construction.
        const events = parents.map((p, i) =>
          ev(`e${i}`, `s${i}`, p === null || i === 0 ? null : `s${p % i}`),
        );
        const nodes = allNodes(buildSpanTree(events));
        const parentOf = new Map<string, string | null>();
        const walk = (n: ReturnType<typeof buildSpanTree<SpanLike>>[number], parent: string | null) => {
          parentOf.set(n.event.eventId, parent);
          for (const c of n.children) walk(c, n.event.spanId);
        };
        for (const r of buildSpanTree(events)) walk(r, null);
        for (const e of events) expect(parentOf.get(e.eventId)).toBe(e.parentSpanId);
        expect(nodes.some((n) => n.cycle || n.orphan)).toBe(false);
      }),
    );
  });

  it('survives a 20,000-deep chain', () => {
    const events = Array.from({ length: 20_000 }, (_, i) =>
      ev(`e${i}`, `s${i}`, i === 0 ? null : `s${i - 1}`),
    );
    const nodes = allNodes(buildSpanTree(events));
    expect(nodes).toHaveLength(20_000);
    expect(nodes[19_999]?.depth).toBe(19_999);
  });
});

describe('visibleRows', () => {
  it('descends only into expanded nodes; all expanded = every node in depth-first order', () => {
    fc.assert(
      fc.property(eventsArb, fc.func(fc.boolean()), (events, pick) => {
        const roots = buildSpanTree(events);
        const nodes = allNodes(roots);
        const all = new Set(events.map((e) => e.eventId));
        expect(visibleRows(roots, all).map((r) => r.node)).toEqual(nodes);
        expect(visibleRows(roots, new Set()).map((r) => r.node)).toEqual(roots);
        const some = new Set(events.filter((e) => pick(e.eventId)).map((e) => e.eventId));
        const rows = visibleRows(roots, some);
        for (let i = 1; i < rows.length; i++) {
          // A deeper row always follows its expanded parent or a sibling of it.
          const prev = rows[i - 1];
          const row = rows[i];
          if (prev && row && row.node.depth > prev.node.depth) {
            expect(row.node.depth).toBe(prev.node.depth + 1);
            expect(prev.expanded).toBe(true);
          }
        }
        for (const r of rows) {
          expect(r.posInSet).toBeGreaterThanOrEqual(1);
          expect(r.posInSet).toBeLessThanOrEqual(r.setSize);
        }
      }),
    );
  });

  it('gives the ancestors to expand to reveal a node', () => {
    const roots = buildSpanTree([ev('a', 'r', null), ev('b', 'c', 'r'), ev('c', 'g', 'c')]);
    expect(ancestorsOf(roots, 'c')).toEqual(['a', 'b']);
    expect(ancestorsOf(roots, 'zz')).toBeNull();
    const rows = visibleRows(roots, new Set(ancestorsOf(roots, 'c')));
    expect(rows.map((r) => r.node.event.eventId)).toContain('c');
  });
});
