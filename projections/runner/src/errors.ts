import type { RecordedEvent } from '@parley/eventstore';
import { ParleyError } from '@parley/platform';

/**
 * A handler threw, returned a row the table cannot hold, or the batch's rows
 * were refused by PostgreSQL as data (SQLSTATE classes 22 and 23). Handlers
 * are pure, so retrying the same events gives the same error: the runner marks
 * the projection failed instead of retrying or skipping.
 */
export class ProjectionHandlerError extends ParleyError {
  override readonly name = 'ProjectionHandlerError';
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;

  constructor(
    readonly projection: string,
    readonly table: string,
    readonly phase: 'keys' | 'evolve' | 'row' | 'write',
    event: RecordedEvent | undefined,
    cause: unknown,
  ) {
    const what = event ? `event ${event.eventId} (${event.type})` : 'the batch';
    super(
      'PROJECTION_HANDLER_FAILED',
      500,
      `projection ${projection}, table ${table}: ${phase} failed on ${what}: ${messageOf(cause)}`,
      { cause },
    );
    this.eventId = event?.eventId;
    this.eventType = event?.type;
  }
}

/** The checkpoint moved, or the generation stopped being the one written: the batch was not applied. */
export class CheckpointConflictError extends ParleyError {
  override readonly name = 'CheckpointConflictError';
  constructor(
    readonly projection: string,
    readonly generation: number,
  ) {
    super(
      'PROJECTION_CHECKPOINT_CONFLICT',
      500,
      `projection ${projection} generation ${generation}: checkpoint changed or generation not writable`,
    );
  }
}

/** Another process holds the lock this operation needs (a rebuild of the same projection). */
export class ProjectionBusyError extends ParleyError {
  override readonly name = 'ProjectionBusyError';
  constructor(message: string) {
    super('PROJECTION_BUSY', 500, message);
  }
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** PostgreSQL refused the values themselves (bad input, constraint): the same batch fails again. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}
