import { createProgress } from '../progress.js';
import { demoSession } from '../seed/demoSessions.js';
import { openSystem } from '../system.js';
import type { CliContext } from './context.js';

/** Appends demo sessions (one stream and one append each) until about `events` events are written. */
export async function seedCommand(
  ctx: CliContext,
  options: { events: number; project: string },
): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 4 });
  let written = 0;
  let sessions = 0;
  const progress = createProgress('seed', options.events);
  try {
    while (written < options.events) {
      const session = demoSession(options.project, sessions);
      await system.store.append(session.stream, session.events, { expectedRevision: 'no_stream' });
      written += session.events.length;
      sessions += 1;
      progress.update(Math.min(written, options.events));
    }
  } finally {
    progress.stop();
    await system.close();
  }
  ctx.out.write(`appended ${written} events in ${sessions} demo sessions of project ${options.project}\n`);
}
