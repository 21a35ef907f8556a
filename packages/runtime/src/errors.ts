import { ParleyError } from '@parley/platform';

/** The session does not exist, or belongs to another project (never said apart). */
export class SessionNotFoundError extends ParleyError {
  constructor(readonly sessionId: string) {
    super('SESSION_NOT_FOUND', 404, 'session not found');
    this.name = 'SessionNotFoundError';
  }
}

/** The session has ended; a new message starts a new session instead. */
export class SessionEndedError extends ParleyError {
  constructor(
    readonly sessionId: string,
    /** The state the session ended in. */
    readonly sessionStatus: string,
  ) {
    super('SESSION_ENDED', 409, `session has ended (${sessionStatus})`, {
      details: { status: sessionStatus },
    });
    this.name = 'SessionEndedError';
  }
}

export class AgentNotFoundError extends ParleyError {
  constructor(readonly agentName: string) {
    super('AGENT_NOT_FOUND', 404, `agent not found: ${agentName}`);
    this.name = 'AgentNotFoundError';
  }
}

/** The project does not exist or is not the caller tenant's. */
export class ProjectNotFoundError extends ParleyError {
  constructor(readonly projectId: string) {
    super('PROJECT_NOT_FOUND', 404, 'project not found');
    this.name = 'ProjectNotFoundError';
  }
}

/** An agent with this name already exists in the project. */
export class AgentExistsError extends ParleyError {
  constructor(readonly agentName: string) {
    super('AGENT_EXISTS', 409, `an agent named ${agentName} already exists in this project`);
    this.name = 'AgentExistsError';
  }
}

/**
 * The model provider failed (HTTP error, connection error, timeout) or the turn was aborted. The
 * turn's trace (with an `error` event) and the failed LlmCallRecorded are recorded; no reply is.
 */
export class ProviderFailedError extends ParleyError {
  constructor(
    readonly provider: string,
    readonly statusCode: number,
    options?: { cause?: unknown; aborted?: boolean },
  ) {
    super(
      options?.aborted ? 'TURN_ABORTED' : 'PROVIDER_FAILED',
      options?.aborted ? 499 : 502,
      options?.aborted ? 'the turn was aborted' : `the model provider failed (status ${statusCode})`,
      { cause: options?.cause, details: { provider, statusCode } },
    );
    this.name = 'ProviderFailedError';
  }
}
