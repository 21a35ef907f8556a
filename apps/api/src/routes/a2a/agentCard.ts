import { A2A_PROTOCOL_VERSION, type ResolvedConnection } from '@parley/channels';

/** What the card needs of the bound agent (@parley/runtime's Agent). */
export interface CardAgent {
  name: string;
  description: string | null;
  tools: ReadonlyArray<{ name: string }>;
}

/**
 * The A2A agent card (A2A 0.3 AgentCard) of one `a2a` connection: its endpoint URL, the API key
 * header it takes, and one skill, the bound agent (its tools as tags). Text in and out; JSON data
 * parts too (a data part reaches the agent as JSON text; an ACTION_SET comes back as one).
 */
export function agentCard(connection: ResolvedConnection, agent: CardAgent, url: string) {
  const displayName = connection.settings.displayName;
  const description = agent.description ?? `Parley agent ${agent.name}`;
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: typeof displayName === 'string' && displayName !== '' ? displayName : agent.name,
    description,
    url,
    preferredTransport: 'JSONRPC',
    // The bound deployment when the connection pins one; else the agent's latest configuration.
    version: connection.deploymentId ?? 'latest',
    capabilities: { streaming: false, pushNotifications: true, stateTransitionHistory: false },
    securitySchemes: {
      apiKey: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'A Parley platform API key of the project, with scope chat.write',
      },
    },
    security: [{ apiKey: [] }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: agent.name,
        name: agent.name,
        description,
        tags: ['conversation', ...agent.tools.map((tool) => tool.name)],
      },
    ],
  };
}
