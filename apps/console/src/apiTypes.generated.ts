/* Generated from /openapi.json by apps/cli/src/testing/consoleApiTypes.ts: do not edit.
 * Regenerate with `npm run console:api-types`; apps/cli/src/consoleApiTypes.int.spec.ts fails when
 * this file and the API's document differ. */
/**
 * Success
 */
export interface GetMeResponse {
  success: true;
  credential: {
    kind: 'api_key' | 'user_jwt';
    /**
     * The key id (key_…) for an API key; null for a JWT.
     */
    id: string | null;
    /**
     * The key's name; null for a JWT.
     */
    name: string | null;
    /**
     * The JWT's `sub`; null for an API key.
     */
    subject: string | null;
  };
  tenantId: string;
  /**
   * The key's project, or those of the JWT's project_ids that are its tenant's (others are left out), in order.
   */
  projects: {
    id: string;
    /**
     * Null only when the project was deleted since the check.
     */
    slug: string | null;
    name: string | null;
  }[];
  /**
   * A key's scopes, or the JWT's `scope` claim split on spaces.
   */
  scopes: string[];
  /**
   * What the scopes grant (the permissions routes check).
   */
  permissions: string[];
}

/**
 * Success
 */
export interface ListSessionSummariesResponse {
  success: true;
  total: number;
  offset: number;
  limit: number;
  hasMore: boolean;
  sessions: {
    id: string;
    channel: string;
    environment: string;
    status: string;
    containmentType: string;
    createdAt: string;
    lastActivityAt: string;
    endedAt: string | null;
    messageCount: {
      user: number;
      agent: number;
      total: number;
    };
    traceEventCount: {
      llm_call: number;
      decision: number;
      tool_call: number;
      error: number;
      total: number;
    };
    tokenCount: {
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
    };
    traceDimensions: {
      [k: string]: string | undefined;
    };
    estimatedCost: number;
    durationMs: number;
    idleDurationMs: number;
    isTest: boolean | null;
    /**
     * Parley's extension: the session's voice calls; absent for a session without calls
     */
    voiceCalls?: {
      callId: string;
      /**
       * The latest lifecycle status: initiated, ringing, in-progress, completed, failed, …
       */
      status: string;
      /**
       * When it happened (ISO 8601)
       */
      at: string;
      /**
       * The call duration once reported
       */
      durationSeconds: number | null;
    }[];
  }[];
  /**
   * How far the read model behind this page has caught up with the event log.
   */
  freshness: {
    /**
     * Log position (commit/prepare) of the last event the read model applied; null when it has applied none.
     */
    position: string | null;
    /**
     * When that event was recorded in the log; null when none.
     */
    recordedAt: string | null;
  };
}

/**
 * Success
 */
export interface ListSessionMessagesResponse {
  success: true;
  sessionId: string;
  messages: {
    messageId: string;
    role: 'user' | 'agent';
    /**
     * The message text as recorded.
     */
    text: string;
    /**
     * receivedAt (user) or repliedAt (agent).
     */
    at: string;
    /**
     * Agent replies: the user message answered, when recorded.
     */
    inReplyTo: string | null;
    /**
     * Agent replies: the agent; null for user messages.
     */
    agentName: string | null;
    /**
     * Agent replies: the ACTION_SET offered (spec 001 §1), when any.
     */
    actionSet: {
      [k: string]: unknown | undefined;
    } | null;
    /**
     * User messages: the interactive callback data, when any.
     */
    actionEvent: {
      [k: string]: unknown | undefined;
    } | null;
    /**
     * Agent replies: whether the fallback answered; null when not recorded.
     */
    usedFallback: boolean | null;
  }[];
  pagination: {
    total: number;
    limit: number;
    offset: number;
  };
  hasMore: boolean;
  /**
   * How far the read model behind this page has caught up with the event log.
   */
  freshness: {
    /**
     * Log position (commit/prepare) of the last event the read model applied; null when it has applied none.
     */
    position: string | null;
    /**
     * When that event was recorded in the log; null when none.
     */
    recordedAt: string | null;
  };
}

/**
 * Success
 */
export interface ListSessionTracesResponse {
  success: true;
  sessionId: string;
  traces: {
    eventId: string;
    sessionId: string;
    traceId: string;
    spanId: string;
    parentSpanId: string | null;
    eventType:
      | 'llm_call'
      | 'tool_call'
      | 'tool_result'
      | 'decision'
      | 'handoff'
      | 'guardrail_eval'
      | 'state_change'
      | 'error'
      | 'response';
    name: string | null;
    status: ('ok' | 'error' | 'blocked') | null;
    decisionKind: string | null;
    llmCallId: string | null;
    startedAt: string;
    endedAt: string | null;
    durationMs: number | null;
    attributes: {
      [k: string]: unknown | undefined;
    };
    childCount: number;
    llmCall: {
      callId: string;
      model: string | null;
      provider: string | null;
      status: string;
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
      latencyMs: number;
      timeToFirstTokenMs: number;
      streamingUsed: boolean;
      cost: number;
    } | null;
  }[];
  pagination: {
    total: number;
    limit: number;
    offset: number;
  };
  hasMore: boolean;
  /**
   * With include=metrics only.
   */
  metrics?: {
    eventCount: number;
    eventCountByType: {
      [k: string]: number | undefined;
    };
    totalLatencyMs: number;
    wallClockMs: number;
    turnCount: number;
    turns: {
      spanId: string;
      traceId: string;
      eventType: string;
      name: string | null;
      startedAt: string;
      latencyMs: number;
      eventCount: number;
      llmCallCount: number;
      toolCallCount: number;
      errorCount: number;
    }[];
    llmCallCount: number;
    tokenUsage: {
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
    };
    totalCost: number;
    llmCalls: {
      callId: string;
      model: string | null;
      provider: string | null;
      status: string;
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
      latencyMs: number;
      timeToFirstTokenMs: number;
      streamingUsed: boolean;
      cost: number;
      spanId: string | null;
      startedAt: string;
    }[];
    toolCallCount: number;
    toolSuccessCount: number;
    toolSuccessRate: number | null;
    guardrailEvaluationCount: number;
    guardrailBlockCount: number;
    guardrailBlockRate: number | null;
    errorCount: number;
    /**
     * The session’s voice calls (docs/traces.md "Voice calls"); their events are not turns
     */
    voiceCalls: {
      callId: string;
      /**
       * The latest lifecycle status (initiated, ringing, in-progress, completed, failed, …)
       */
      status: string | null;
      statuses: {
        status: string;
        at: string;
      }[];
      durationMs: number | null;
      firstResponseTimeMs: number | null;
      meanResponseTimeMs: number | null;
      turnCount: number | null;
      sttConfidence: number | null;
      bargeInRate: number | null;
      silenceDurationMs: number | null;
    }[];
  };
}

/**
 * Success
 */
export interface GetSessionMetricsResponse {
  success: true;
  data: {
    eventCount: number;
    eventCountByType: {
      [k: string]: number | undefined;
    };
    totalLatencyMs: number;
    wallClockMs: number;
    turnCount: number;
    turns: {
      spanId: string;
      traceId: string;
      eventType: string;
      name: string | null;
      startedAt: string;
      latencyMs: number;
      eventCount: number;
      llmCallCount: number;
      toolCallCount: number;
      errorCount: number;
    }[];
    llmCallCount: number;
    tokenUsage: {
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
    };
    totalCost: number;
    llmCalls: {
      callId: string;
      model: string | null;
      provider: string | null;
      status: string;
      inputTokens: number;
      cachedTokens: number;
      completionTokens: number;
      reasoningTokens: number;
      outputTokens: number;
      totalTokens: number;
      latencyMs: number;
      timeToFirstTokenMs: number;
      streamingUsed: boolean;
      cost: number;
      spanId: string | null;
      startedAt: string;
    }[];
    toolCallCount: number;
    toolSuccessCount: number;
    toolSuccessRate: number | null;
    guardrailEvaluationCount: number;
    guardrailBlockCount: number;
    guardrailBlockRate: number | null;
    errorCount: number;
    /**
     * The session’s voice calls (docs/traces.md "Voice calls"); their events are not turns
     */
    voiceCalls: {
      callId: string;
      /**
       * The latest lifecycle status (initiated, ringing, in-progress, completed, failed, …)
       */
      status: string | null;
      statuses: {
        status: string;
        at: string;
      }[];
      durationMs: number | null;
      firstResponseTimeMs: number | null;
      meanResponseTimeMs: number | null;
      turnCount: number | null;
      sttConfidence: number | null;
      bargeInRate: number | null;
      silenceDurationMs: number | null;
    }[];
    sessionId: string;
  };
}

/**
 * Success
 */
export interface GetSessionAnalysisResponse {
  success: true;
  data: {
    sessionId: string;
    slowSpans: {
      eventId: string;
      spanId: string;
      eventType: string;
      name: string | null;
      durationMs: number;
      rule: 'absolute' | 'relative';
      thresholdMs: number;
    }[];
    errorPatterns: {
      eventType: string;
      name: string | null;
      code: string | null;
      count: number;
      firstAt: string;
      lastAt: string;
      spanIds: string[];
    }[];
    decisionAnomalies: {
      kind: 'repeated_decision' | 'handoff_loop' | 'failed_decision' | 'decision_without_kind';
      message: string;
      count: number;
      spanIds: string[];
      details: {
        [k: string]: unknown | undefined;
      };
    }[];
    suggestions: {
      code: string;
      message: string;
      evidence: {
        [k: string]: unknown | undefined;
      };
    }[];
    /**
     * The thresholds the rules used (docs/traces.md).
     */
    rules: {
      [k: string]: number | undefined;
    };
  };
}

/**
 * Recordings of the session (headers Cache-Control: no-store, Pragma: no-cache, Referrer-Policy: no-referrer).
 */
export interface GetSessionRecordingsResponse {
  success: true;
  data: {
    sessionId: string;
    projectId: string;
    status: 'success' | 'partial' | 'media_in_progress' | 'call_in_progress' | 'media_unavailable';
    /**
     * Set only when recordings is empty.
     */
    unavailableReason:
      | (
          | 'call_in_progress'
          | 'media_in_progress'
          | 'url_signing_failed'
          | 'recording_disabled'
          | 'media_not_available'
          | 'auth_failed'
          | 'storage_write_failed'
          | 'media_object_missing'
          | 'retention_expired'
          | 'deleted'
        )
      | null;
    /**
     * Retry with backoff while true; stop when false.
     */
    retryable: boolean;
    /**
     * Empty when the session has no recording.
     */
    recordings: {
      recordingId: string;
      /**
       * Telephony call identifier.
       */
      callId: string;
      availability: 'available' | 'media_in_progress' | 'unavailable';
      /**
       * The first file-level reason when no file of this recording is available.
       */
      unavailableReason:
        | (
            | 'call_in_progress'
            | 'media_in_progress'
            | 'url_signing_failed'
            | 'recording_disabled'
            | 'media_not_available'
            | 'auth_failed'
            | 'storage_write_failed'
            | 'media_object_missing'
            | 'retention_expired'
            | 'deleted'
          )
        | null;
      /**
       * True if any file of this recording is retryable.
       */
      retryable: boolean;
      durationSeconds: number | null;
      /**
       * True under legal hold (cannot be deleted).
       */
      immutable: boolean;
      createdAt: string;
      retentionExpiresAt: string | null;
      files: {
        /**
         * Owning recording.
         */
        recordingId: string;
        /**
         * Position of the file inside the recording.
         */
        objectIndex: number;
        fileName: string | null;
        /**
         * Which side of the call the file holds.
         */
        channel: ('caller' | 'agent' | 'mixed') | null;
        recordingType: string | null;
        /**
         * 0 when the file is unavailable.
         */
        bytes: number;
        recordingStartTime: string | null;
        recordingEndTime: string | null;
        availability: 'available' | 'media_in_progress' | 'unavailable';
        /**
         * Media URL, a bearer secret; null when none was issued. signed: absolute pre-signed object-storage URL; proxied: a path on the API host, to use exactly as returned with no authentication header; external: a customer-owned URL.
         */
        url: string | null;
        /**
         * null when url is null.
         */
        urlKind: ('signed' | 'proxied' | 'external') | null;
        /**
         * Seconds until the URL expires; null for external URLs and when url is null; never 0.
         */
        expiresIn: number | null;
        /**
         * null when url is set.
         */
        unavailableReason:
          | (
              | 'call_in_progress'
              | 'media_in_progress'
              | 'url_signing_failed'
              | 'recording_disabled'
              | 'media_not_available'
              | 'auth_failed'
              | 'storage_write_failed'
              | 'media_object_missing'
              | 'retention_expired'
              | 'deleted'
            )
          | null;
        /**
         * True only when a later call can produce a URL for this file.
         */
        retryable: boolean;
      }[];
    }[];
  };
}

/**
 * Success
 */
export interface ListLlmLedgerResponse {
  success: true;
  statusCode: 200;
  total: number;
  limit: number;
  offset: number;
  dataMode: 'summary' | 'full';
  hasMore: boolean;
  generations: {
    id: string;
    model: string;
    agentName: string;
    provider: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    environment: string;
    status: 'success' | 'failed';
    inputTokens: number;
    cachedTokens: number;
    completionTokens: number;
    reasoningTokens: number;
    outputTokens: number;
    totalTokens: number;
    latencyMs: number;
    timeToFirstTokenMs: number;
    streamingUsed: boolean;
    cost: number;
    timestamp: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    sessionId: string;
    callId: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    traceId: string;
    eventId: string;
    source: string;
    sourceSubtype: string;
    sourceLabel: string;
    sourceSubtypeLabel: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    sourceId: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    channel: string;
    /**
     * '' when the call did not record it (e.g. a design-time call)
     */
    channelType: string;
    statusCode: number;
    payloadState: 'available' | 'not_stored' | 'too_large';
    /**
     * Only with dataMode=full and payloadState available.
     */
    payload?: {
      prompt: unknown;
      response: unknown;
    };
  }[];
  /**
   * How far the read model behind this page has caught up with the event log.
   */
  freshness: {
    /**
     * Log position (commit/prepare) of the last event the read model applied; null when it has applied none.
     */
    position: string | null;
    /**
     * When that event was recorded in the log; null when none.
     */
    recordedAt: string | null;
  };
}

/**
 * Success
 */
export interface LlmLedgerStatsResponse {
  success: true;
  bucket: 'minute' | 'hour' | 'day';
  groupBy: 'model' | 'provider' | 'source';
  fromDate: string;
  toDate: string;
  /**
   * By total cost descending, then key; at most 20 (the rest folded into `other`).
   */
  series: {
    /**
     * The group (`unknown` for calls without one; `other`: the folded groups).
     */
    key: string;
    /**
     * Buckets with calls only, by time.
     */
    points: {
      /**
       * Start of the bucket (UTC).
       */
      t: string;
      calls: number;
      failed: number;
      cost: number;
      inputTokens: number;
      outputTokens: number;
      totalTokens: number;
      /**
       * percentile_cont of latencyMs, rounded to whole ms; null when no call has a latency.
       */
      latencyP50Ms: number | null;
      /**
       * percentile_cont of latencyMs, rounded to whole ms; null when no call has a latency.
       */
      latencyP95Ms: number | null;
    }[];
  }[];
  totals: {
    key: string;
    calls: number;
    failed: number;
    cost: number;
    totalTokens: number;
    /**
     * percentile_cont of latencyMs, rounded to whole ms; null when no call has a latency.
     */
    latencyP50Ms: number | null;
    /**
     * percentile_cont of latencyMs, rounded to whole ms; null when no call has a latency.
     */
    latencyP95Ms: number | null;
  }[];
  /**
   * How far the read model behind this page has caught up with the event log.
   */
  freshness: {
    /**
     * Log position (commit/prepare) of the last event the read model applied; null when it has applied none.
     */
    position: string | null;
    /**
     * When that event was recorded in the log; null when none.
     */
    recordedAt: string | null;
  };
}

/**
 * Success
 */
export interface ListProjectionsResponse {
  success: true;
  head: {
    position: string | null;
    recordedAt: string | null;
  };
  projections: {
    name: string;
    state: 'ok' | 'building' | 'failed' | 'rebuild_required' | 'unregistered';
    codeVersion: number;
    liveGeneration: number | null;
    liveVersion: number | null;
    versionMismatch: boolean;
    /**
     * Live and building generations (retired ones left out)
     */
    generations: {
      generation: number;
      version: number;
      status: 'building' | 'live' | 'retired';
      /**
       * Set when a handler failed: the generation is stopped at that event
       */
      failure: {
        error: string;
        eventId: string | null;
        eventType: string | null;
        /**
         * ISO 8601
         */
        at: string;
      } | null;
      /**
       * The last event applied; null before the first
       */
      checkpoint: string | null;
      eventsProcessed: number;
      /**
       * Events of its types after the checkpoint, counted up to the cap
       */
      eventsBehind: number;
      eventsBehindCapped: boolean;
      secondsBehind: number;
      lastEventRecordedAt: string | null;
      /**
       * ISO 8601
       */
      updatedAt: string;
    }[];
    /**
     * The latest rebuild requested through the API
     */
    rebuild: {
      /**
       * The rebuild (a uuid)
       */
      id: string;
      projection: string;
      state: 'queued' | 'running' | 'completed' | 'failed';
      /**
       * ISO 8601
       */
      requestedAt: string;
      /**
       * When the worker first took it; null while queued
       */
      startedAt: string | null;
      finishedAt: string | null;
      /**
       * The generation being built once started; when completed, the one now live
       */
      generation: number | null;
      /**
       * Events folded into the new generation so far
       */
      eventsProcessed: number;
      /**
       * Processed plus still to replay, when counted (a lower bound past 1,000,000 behind)
       */
      eventsTotal: number | null;
      eventsPerSecond: number | null;
      /**
       * Why it failed (state failed only)
       */
      error: string | null;
      requestedBy: {
        kind: 'api_key' | 'user';
        /**
         * The key id or the JWT subject
         */
        id: string;
      };
    } | null;
  }[];
}

/**
 * Success
 */
export interface GetProjectionRebuildResponse {
  success: true;
  rebuild: {
    /**
     * The rebuild (a uuid)
     */
    id: string;
    projection: string;
    state: 'queued' | 'running' | 'completed' | 'failed';
    /**
     * ISO 8601
     */
    requestedAt: string;
    /**
     * When the worker first took it; null while queued
     */
    startedAt: string | null;
    finishedAt: string | null;
    /**
     * The generation being built once started; when completed, the one now live
     */
    generation: number | null;
    /**
     * Events folded into the new generation so far
     */
    eventsProcessed: number;
    /**
     * Processed plus still to replay, when counted (a lower bound past 1,000,000 behind)
     */
    eventsTotal: number | null;
    eventsPerSecond: number | null;
    /**
     * Why it failed (state failed only)
     */
    error: string | null;
    requestedBy: {
      kind: 'api_key' | 'user';
      /**
       * The key id or the JWT subject
       */
      id: string;
    };
  };
}
