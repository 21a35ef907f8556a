import { builtinDefault, DEFAULT_AGENT } from '../../agents/agentRow.js';
import type { Agent, AgentStore, TurnProject } from '../../agents/store.js';
import { AgentNotFoundError } from '../../errors.js';

/**
 * The agents as one turn sees them: each project's agents read once (`list`, one query) and every
 * `get`/`resolve` of the turn answered from that list, with the store's own rules (the named agent,
 * else the oldest, else the built-in default when the project has none). A turn used to read the
 * agents up to three times (the session's agent, again for a continued session, then the list of
 * handoff targets); now it is one read, made at the start of the turn beside the project's and the
 * session's. Writes go to the store and forget the list.
 */
export interface TurnAgents extends AgentStore {
  /** Starts the read of the project's agents now (a failure surfaces where the list is first awaited). */
  prefetch(projectId: string): void;
  /**
   * Starts the read of the agents together with the project's row, in one query when the store can
   * (listWithProject); undefined when it cannot (read the project apart).
   */
  prefetchWithProject(projectId: string): Promise<TurnProject | null> | undefined;
}

export function turnAgents(store: AgentStore): TurnAgents {
  const lists = new Map<string, Promise<Agent[]>>();
  const list = (projectId: string): Promise<Agent[]> => {
    let agents = lists.get(projectId);
    if (agents === undefined) {
      agents = store.list(projectId);
      lists.set(projectId, agents);
    }
    return agents;
  };
  const get = async (projectId: string, name: string): Promise<Agent | null> =>
    (await list(projectId)).find((agent) => agent.name === name) ?? null;
  const forget = <T>(projectId: string, write: Promise<T>): Promise<T> => {
    lists.delete(projectId);
    return write;
  };
  return {
    prefetch(projectId) {
      list(projectId).catch(() => {});
    },
    prefetchWithProject(projectId) {
      if (store.listWithProject === undefined || lists.has(projectId)) return undefined;
      const both = store.listWithProject(projectId);
      lists.set(
        projectId,
        both.then((b) => b.agents),
      );
      lists.get(projectId)?.catch(() => {});
      const project = both.then((b) => b.project);
      project.catch(() => {});
      return project;
    },
    list,
    get,
    async resolve(projectId, name) {
      const agents = await list(projectId);
      if (name !== undefined) {
        const agent = agents.find((a) => a.name === name);
        if (agent !== undefined) return agent;
        if (name === DEFAULT_AGENT.name && agents.length === 0) return builtinDefault(projectId);
        throw new AgentNotFoundError(name);
      }
      return agents[0] ?? builtinDefault(projectId);
    },
    create: (projectId, input) => forget(projectId, store.create(projectId, input)),
    update: (projectId, name, patch) => forget(projectId, store.update(projectId, name, patch)),
    delete: (projectId, name) => forget(projectId, store.delete(projectId, name)),
    secrets: (agent) => store.secrets(agent),
  };
}
