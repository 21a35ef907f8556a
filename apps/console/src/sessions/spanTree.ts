/**
 * The span tree of a session's trace events, built from `parentSpanId` (docs/traces.md): a span's
 * children are the events whose `parentSpanId` is its `spanId`; a root has no parent or a parent not
 * in the session (an orphan). Bad data cannot break it: with several events sharing a span id the
 * first (in order) takes the children; events caught in a cycle of parents, unreachable from any
 * root, become roots themselves (the earliest of each cycle), so every event is shown exactly once.
 */
export interface SpanLike {
  eventId: string;
  spanId: string;
  parentSpanId: string | null;
}

export interface SpanNode<T extends SpanLike> {
  event: T;
  depth: number;
  children: Array<SpanNode<T>>;
  /** True when the event's parent span is named but is not in the session. */
  orphan: boolean;
  /** True when the event was made a root to break a cycle of parents. */
  cycle: boolean;
}

export function buildSpanTree<T extends SpanLike>(events: readonly T[]): Array<SpanNode<T>> {
  const ownerOf = new Map<string, number>();
  events.forEach((e, i) => {
    if (!ownerOf.has(e.spanId)) ownerOf.set(e.spanId, i);
  });
  const childrenOf = new Map<number, number[]>();
  const rootIdx: number[] = [];
  const orphan = new Set<number>();
  events.forEach((e, i) => {
    const parent = e.parentSpanId === null || e.parentSpanId === '' ? undefined : ownerOf.get(e.parentSpanId);
    if (parent === undefined || parent === i) {
      if (e.parentSpanId && parent === undefined) orphan.add(i);
      rootIdx.push(i);
    } else {
      const list = childrenOf.get(parent);
      if (list) list.push(i);
      else childrenOf.set(parent, [i]);
    }
  });

  const visited = new Set<number>();
  const build = (i: number, depth: number, cycle: boolean): SpanNode<T> => {
    visited.add(i);
    const node: SpanNode<T> = { event: events[i] as T, depth, children: [], orphan: orphan.has(i), cycle };
    // Iterative over children lists to keep deep chains from overflowing the stack.
    const stack: Array<{ node: SpanNode<T>; idx: number }> = [{ node, idx: i }];
    while (stack.length > 0) {
      const top = stack.pop() as { node: SpanNode<T>; idx: number };
      for (const c of childrenOf.get(top.idx) ?? []) {
        if (visited.has(c)) continue;
        visited.add(c);
        const child: SpanNode<T> = {
          event: events[c] as T,
          depth: top.node.depth + 1,
          children: [],
          orphan: orphan.has(c),
          cycle: false,
        };
        top.node.children.push(child);
        stack.push({ node: child, idx: c });
      }
    }
    return node;
  };

  const out: Array<{ at: number; node: SpanNode<T> }> = [];
  for (const i of rootIdx) out.push({ at: i, node: build(i, 0, false) });
  // Whatever is left sits in a cycle of parents: break each at its earliest event.
  for (let i = 0; i < events.length; i++) {
    if (!visited.has(i)) out.push({ at: i, node: build(i, 0, true) });
  }
  return out.sort((a, b) => a.at - b.at).map((r) => r.node);
}

export interface VisibleRow<T extends SpanLike> {
  node: SpanNode<T>;
  hasChildren: boolean;
  expanded: boolean;
  /** 1-based position among siblings and sibling count (aria-posinset / aria-setsize). */
  posInSet: number;
  setSize: number;
}

/** The rows shown, depth first, descending only into expanded nodes (keyed by eventId). */
export function visibleRows<T extends SpanLike>(
  roots: ReadonlyArray<SpanNode<T>>,
  expanded: ReadonlySet<string>,
): Array<VisibleRow<T>> {
  const rows: Array<VisibleRow<T>> = [];
  const stack: Array<{ node: SpanNode<T>; pos: number; size: number }> = [];
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ node: roots[i] as SpanNode<T>, pos: i + 1, size: roots.length });
  while (stack.length > 0) {
    const { node, pos, size } = stack.pop() as { node: SpanNode<T>; pos: number; size: number };
    const hasChildren = node.children.length > 0;
    const isOpen = hasChildren && expanded.has(node.event.eventId);
    rows.push({ node, hasChildren, expanded: isOpen, posInSet: pos, setSize: size });
    if (isOpen) {
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push({ node: node.children[i] as SpanNode<T>, pos: i + 1, size: node.children.length });
      }
    }
  }
  return rows;
}

/** Every node, depth first. */
export function allNodes<T extends SpanLike>(roots: ReadonlyArray<SpanNode<T>>): Array<SpanNode<T>> {
  const out: Array<SpanNode<T>> = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as SpanNode<T>;
    out.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as SpanNode<T>);
  }
  return out;
}

/** The eventIds of the path from a root down to the event (to expand its ancestors). */
export function ancestorsOf<T extends SpanLike>(
  roots: ReadonlyArray<SpanNode<T>>,
  eventId: string,
): string[] | null {
  const path: string[] = [];
  const walk = (n: SpanNode<T>): boolean => {
    if (n.event.eventId === eventId) return true;
    path.push(n.event.eventId);
    for (const c of n.children) if (walk(c)) return true;
    path.pop();
    return false;
  };
  for (const r of roots) if (walk(r)) return path;
  return null;
}
