/**
 * The one error base class: a stable machine-readable code, the HTTP status
 * it maps to, and a human-readable message. The HTTP layer maps these to the
 * spec's envelopes (spec 000 §7) in one place.
 */
export class ParleyError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: string,
    status: number,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ParleyError';
    this.code = code;
    this.status = status;
    this.details = options?.details;
  }
}
