import { sessionStream } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { SessionScope } from './options.js';

/**
 * A session's project and tenant from the first event of its stream (every
 * session event carries `projectId`; the tenant is in the metadata). A lookup
 * of where the session lives, not of its history, so the command side may
 * make it (DESIGN.md "The flow").
 */
export function sessionScopeFromLog(store: Pick<EventStore, 'readStream'>) {
  return async (sessionId: string): Promise<SessionScope | null> => {
    for await (const event of store.readStream(sessionStream(sessionId), { maxCount: 1 })) {
      const projectId = event.data.projectId ?? event.metadata.projectId;
      if (typeof projectId !== 'string') return null;
      const tenantId = event.metadata.tenantId ?? event.data.tenantId;
      const channelUserId = event.type === 'SessionStarted' ? event.data.channelUserId : undefined;
      return {
        projectId,
        tenantId: typeof tenantId === 'string' ? tenantId : undefined,
        ...(typeof channelUserId === 'string' ? { channelUserId } : {}),
      };
    }
    return null;
  };
}
