import { ParleyError } from '@parley/platform/errors';
import type { z } from 'zod';

/** One validation problem: where (path inside the event data) and what. Never echoes the value. */
export interface EventIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

function describe(issues: readonly EventIssue[]): string {
  return issues
    .map(
      (issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`,
    )
    .join('; ');
}

export function issuesOf(error: z.ZodError): EventIssue[] {
  return error.issues.map(({ code, path, message }) => ({ code, path, message }));
}

/**
 * Event data that does not match its schema: on append (a producer bug, nothing was written) or
 * on read (a stored event that cannot be interpreted, which a projection must stop on, not skip).
 */
export class InvalidEventDataError extends ParleyError {
  override readonly name = 'InvalidEventDataError';
  constructor(
    readonly eventType: string,
    readonly schemaVersion: number,
    readonly issues: readonly EventIssue[],
    readonly eventId?: string,
  ) {
    super(
      'INVALID_EVENT_DATA',
      500,
      `invalid ${eventType} v${schemaVersion} data${eventId === undefined ? '' : ` (event ${eventId})`}: ${describe(issues)}`,
    );
  }
}

/** toAppend was asked for a type the catalog does not define. */
export class UnknownEventTypeError extends ParleyError {
  override readonly name = 'UnknownEventTypeError';
  constructor(readonly eventType: string) {
    super(
      'UNKNOWN_EVENT_TYPE',
      500,
      `unknown event type ${JSON.stringify(eventType)}: add it to the catalog in @parley/events first`,
    );
  }
}

/**
 * A stored event whose schemaVersion this build cannot upcast: written by newer code (deploy the
 * newer code to every reader first) or not a valid version at all.
 */
export class UnsupportedSchemaVersionError extends ParleyError {
  override readonly name = 'UnsupportedSchemaVersionError';
  constructor(
    readonly eventType: string,
    readonly schemaVersion: number,
    readonly currentVersion: number,
    readonly eventId?: string,
  ) {
    const which = eventId === undefined ? eventType : `${eventType} event ${eventId}`;
    super(
      'UNSUPPORTED_SCHEMA_VERSION',
      500,
      schemaVersion > currentVersion
        ? `${which} has schemaVersion ${schemaVersion}, newer than this build's ${currentVersion}: ` +
            'readers must be deployed before the writers of a new version'
        : `${which} has schemaVersion ${String(schemaVersion)}, not a version between 1 and ${currentVersion}`,
    );
  }
}
