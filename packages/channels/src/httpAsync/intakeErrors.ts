import { ParleyError } from '@parley/platform';

/** The subscription is paused: it takes no messages until it is resumed. */
export class SubscriptionPausedError extends ParleyError {
  constructor(id: string) {
    super('SUBSCRIPTION_PAUSED', 409, `webhook subscription ${id} is paused: resume it to send messages`);
    this.name = 'SubscriptionPausedError';
  }
}

/** A `session_key` with the canonical prefix that the service did not issue for this subscription. */
export class SessionKeyUnknownError extends ParleyError {
  constructor() {
    super(
      'SESSION_KEY_UNKNOWN',
      400,
      'session_key is not a key issued for this subscription: send the session_key exactly as returned in ' +
        'the acknowledgement; do not build it (a first message takes a key of your own, without the ha: prefix)',
    );
    this.name = 'SessionKeyUnknownError';
  }
}

/**
 * The caller's own key already started a conversation of this subscription. `sessionKey` is that
 * conversation's canonical key (`details.session_key`): later messages send it instead.
 */
export class SessionKeyInUseError extends ParleyError {
  readonly sessionKey: string;
  constructor(sessionKey: string) {
    super(
      'SESSION_KEY_IN_USE',
      409,
      'this session_key already started a conversation: continue it with the canonical session_key ' +
        '(error.details.session_key), or start a new one with another key of your own',
      { details: { session_key: sessionKey }, exposeDetails: true },
    );
    this.name = 'SessionKeyInUseError';
    this.sessionKey = sessionKey;
  }
}

/** A caller key that cannot be stored as sent (empty, too long, control characters). */
export class SessionKeyInvalidError extends ParleyError {
  constructor(reason: string) {
    super('VALIDATION_ERROR', 400, reason, { details: { field: 'session_key' } });
    this.name = 'SessionKeyInvalidError';
  }
}

/** The earlier route's `sessionId` is not a session of a conversation of this subscription. */
export class SessionIdUnknownError extends ParleyError {
  constructor() {
    super(
      'SESSION_ID_UNKNOWN',
      400,
      'sessionId is not a session of this connection: send the sessionId of an earlier callback, or omit it ' +
        'to start a new conversation',
    );
    this.name = 'SessionIdUnknownError';
  }
}
