/**
 * Event metadata the demo seed (`parley seed`, the first `parley start`) puts on the demo's recording
 * events: `{ demo: true }`. The worker fetches no media for them (the seed writes the stored files
 * itself; the files shown as still being fetched must stay so, without asking a host that does not
 * exist). Nothing else reads it.
 */
export const DEMO_EVENT_MARK = 'demo';
