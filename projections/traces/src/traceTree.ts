/** What the metrics and analysis rules need of a trace event (a `trace_events` row, narrowed). */
export interface TraceNode {
  event_id: string;
  span_id: string;
  parent_span_id: string | null;
  trace_id: string;
  event_type: string;
  name: string | null;
  status: string | null;
  decision_kind: string | null;
  llm_call_id: string | null;
  started_at: Date;
  duration_ms: number | null;
  ended_at: Date | null;
  attributes: unknown;
}

export interface TraceTree {
  /** Events in session order (start time, then place in the stream). */
  events: readonly TraceNode[];
  /** Roots: events without a parent, or whose parent span is not in the session. One turn each. */
  roots: readonly TraceNode[];
  /** Direct children per parent span id, in session order. */
  children: ReadonlyMap<string, readonly TraceNode[]>;
}

/** Builds the span tree of a session's events (given in session order). */
export function traceTree(events: readonly TraceNode[]): TraceTree {
  const spans = new Set(events.map((e) => e.span_id));
  const children = new Map<string, TraceNode[]>();
  const roots: TraceNode[] = [];
  for (const event of events) {
    if (event.parent_span_id === null || !spans.has(event.parent_span_id)) {
      roots.push(event);
      continue;
    }
    const list = children.get(event.parent_span_id) ?? [];
    list.push(event);
    children.set(event.parent_span_id, list);
  }
  return { events, roots, children };
}

/**
 * A root and everything under it, root first. Each event is visited once, so spans recorded with a
 * cycle of parents (bad data) cannot loop. With `claimed` shared across calls, an event reached from
 * an earlier root (duplicate span ids) is not counted again in a later one.
 */
export function subtree(tree: TraceTree, root: TraceNode, claimed: Set<TraceNode> = new Set()): TraceNode[] {
  claimed.add(root);
  const out: TraceNode[] = [root];
  const spansWalked = new Set<string>();
  for (let i = 0; i < out.length; i++) {
    const span = out[i]!.span_id;
    if (spansWalked.has(span)) continue;
    spansWalked.add(span);
    for (const child of tree.children.get(span) ?? []) {
      if (!claimed.has(child)) {
        claimed.add(child);
        out.push(child);
      }
    }
  }
  return out;
}

export const endOf = (e: TraceNode): number => (e.ended_at ?? e.started_at).getTime();
