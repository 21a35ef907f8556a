/**
 * The one error base class: a stable machine-readable code, the HTTP status
 * it maps to, and a human-readable message. The HTTP layer maps these to the
 * spec's envelopes (spec 000 §7) in one place.
 */
export class ParleyError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  /**
   * The details are meant for the caller: the standard envelope carries them as `error.details`
   * (4xx only). Otherwise they stay in the process (logs, the analytics envelope's own rules).
   */
  readonly exposeDetails: boolean;

  constructor(
    code: string,
    status: number,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; exposeDetails?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ParleyError';
    this.code = code;
    this.status = status;
    this.details = options?.details;
    this.exposeDetails = options?.exposeDetails === true;
  }
}

/**
 * The one way to recognise an error: by its stable `code`, never by class name or message. With no
 * codes, any ParleyError matches.
 */
export function isParleyError(err: unknown, ...codes: readonly string[]): err is ParleyError {
  return err instanceof ParleyError && (codes.length === 0 || codes.includes(err.code));
}
